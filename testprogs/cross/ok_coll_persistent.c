// ranks: 4
// mpi: 4 (persistent collectives are MPI-4.0)
//
// ok_coll_persistent.c: persistent collectives (MPI-4.1 §6.13) made in
// the same order on every rank and started several times: MPI_Bcast_init
// whose root sends one vector-typed column and whose other ranks receive
// 3 MPI_DOUBLE (equal signatures), MPI_Reduce_init with MPI_MIN at rank 3,
// MPI_Alltoall_init; started together with MPI_Startall and completed
// with MPI_Waitall, three times. Every value is checked.
// (MPICH 4.0.2's MPI_Allgather_init and MPI_Gather_init deliver stale or
// no data on 4 ranks, so they are not used here.)
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, total, it, i;
    double m[3][2], col[3];
    int in, mn = -1, a2a_out[8], a2a_in[8];
    MPI_Datatype col_t;
    MPI_Request r[3];
    MPI_Status sts[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &col_t);
    MPI_Type_commit(&col_t);
    if (rank == 0)
        MPI_Bcast_init(&m[0][1], 1, col_t, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    else
        MPI_Bcast_init(col, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Reduce_init(&in, &mn, 1, MPI_INT, MPI_MIN, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Alltoall_init(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);

    for (it = 0; it < 3; it++) {
        for (i = 0; i < 3; i++) {
            m[i][0] = -1;
            m[i][1] = 10 * it + i;
            col[i] = -1;
        }
        in = 100 * it + rank;
        for (i = 0; i < size; i++) {
            a2a_out[i] = 100 * it + 10 * rank + i;
            a2a_in[i] = -1;
        }
        MPI_Startall(3, r);
        MPI_Waitall(3, r, sts);
        if (rank != 0)
            for (i = 0; i < 3; i++)
                CHECK(col[i] == 10 * it + i, "rank %d it %d bcast [%d] = %g\n", rank, it, i, col[i]);
        if (rank == 3)
            CHECK(mn == 100 * it, "it %d reduce: %d\n", it, mn);
        for (i = 0; i < size; i++)
            CHECK(a2a_in[i] == 100 * it + 10 * i + rank, "rank %d it %d alltoall [%d] = %d\n", rank, it, i, a2a_in[i]);
    }
    for (i = 0; i < 3; i++)
        MPI_Request_free(&r[i]);
    MPI_Type_free(&col_t);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_coll_persistent: OK\n");
    MPI_Finalize();
    return total != 0;
}
