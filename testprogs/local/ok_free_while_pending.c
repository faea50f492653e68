// ranks: 2
//
// ok_free_while_pending.c: objects freed while an operation that uses them
// is still in progress, which MPI allows (the operation completes
// normally): a derived datatype freed between MPI_Isend/MPI_Irecv and
// MPI_Waitall (MPI-4.1 §5.1.9), and a duplicated communicator freed while
// a receive on it is pending (MPI-4.1 §7.4.3). MPI_Comm_idup completed by
// MPI_Wait, then used and freed. Checks the data.
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
    int rank, total, i, out[6], in[6], v = -1, one;
    MPI_Datatype evens;
    MPI_Comm dup, idup;
    MPI_Request r[2], ir;
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    for (i = 0; i < 6; i++) {
        out[i] = 10 * rank + i;
        in[i] = -1;
    }
    MPI_Type_vector(3, 1, 2, MPI_INT, &evens);
    MPI_Type_commit(&evens);
    MPI_Irecv(in, 1, evens, peer, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, 1, evens, peer, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Type_free(&evens);
    MPI_Waitall(2, r, st);
    CHECK(in[4] == 10 * peer + 4 && in[1] == -1, "rank %d: type freed while pending\n", rank);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        MPI_Irecv(&v, 1, MPI_INT, 1, 5, dup, &r[0]);
        MPI_Comm_free(&dup);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        CHECK(v == 55, "rank 0: receive on a freed communicator got %d\n", v);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        v = 55;
        MPI_Send(&v, 1, MPI_INT, 0, 5, dup);
        MPI_Comm_free(&dup);
    }

    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &ir);
    MPI_Wait(&ir, MPI_STATUS_IGNORE);
    MPI_Allreduce(&rank, &one, 1, MPI_INT, MPI_SUM, idup);
    CHECK(one == 1, "rank %d: allreduce on idup %d\n", rank, one);
    MPI_Comm_free(&idup);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_free_while_pending: OK\n");
    MPI_Finalize();
    return total != 0;
}
