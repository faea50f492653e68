// ranks: 3
//
// ok_coll_nonblocking.c: nonblocking collectives called in the same order
// on every rank (MPI-4.1 §6.12), several outstanding at once and
// completed in a different order than started: MPI_Ibcast of one
// contiguous(4, INT) from the root received as 4 MPI_INT elsewhere (equal
// signatures), MPI_Iallreduce with MPI_MAX, MPI_Igather, MPI_Ibarrier
// completed with MPI_Test polling, MPI_Iscan. Every value is checked.
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
    int rank, size, total, i, flag = 0;
    int b[4] = {0, 0, 0, 0}, mx = -1, g[8], sc = -1, one;
    MPI_Request r[3];
    MPI_Datatype four;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);
    if (rank == 0) {
        for (i = 0; i < 4; i++)
            b[i] = 5 + i;
        MPI_Ibcast(b, 1, four, 0, MPI_COMM_WORLD, &r[0]);
    } else {
        MPI_Ibcast(b, 4, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    }
    int me = 3 * rank;
    MPI_Iallreduce(&me, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r[1]);
    MPI_Igather(&rank, 1, MPI_INT, g, 1, MPI_INT, size - 1, MPI_COMM_WORLD, &r[2]);
    MPI_Wait(&r[2], MPI_STATUS_IGNORE);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(b[0] == 5 && b[3] == 8, "rank %d ibcast: %d %d\n", rank, b[0], b[3]);
    CHECK(mx == 3 * (size - 1), "rank %d iallreduce: %d\n", rank, mx);
    if (rank == size - 1)
        for (i = 0; i < size; i++)
            CHECK(g[i] == i, "igather [%d] = %d\n", i, g[i]);

    MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
    while (!flag)
        MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);

    one = 1;
    MPI_Iscan(&one, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(sc == rank + 1, "rank %d iscan: %d\n", rank, sc);

    MPI_Type_free(&four);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_coll_nonblocking: OK\n");
    MPI_Finalize();
    return total != 0;
}
