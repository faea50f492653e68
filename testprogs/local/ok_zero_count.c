// ranks: 3
//
// ok_zero_count.c: empty data is legal with a NULL buffer: MPI_Send and
// MPI_Recv of 0 elements from/to NULL, MPI_Bcast and MPI_Allreduce of 0
// elements with NULL buffers, and an MPI_Gatherv in which the last rank
// contributes nothing (NULL send buffer, count 0, recvcounts 0 for it).
// Checks the gathered data.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define MAXP 8

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
    int rank, size, i, total, n;
    int mine[2], all[2 * MAXP], counts[MAXP], displs[MAXP];
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP)
        MPI_Abort(MPI_COMM_WORLD, 2);

    if (rank == 0)
        MPI_Send(NULL, 0, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1) {
        MPI_Recv(NULL, 0, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == 0, "rank 1: count %d\n", n);
    }

    MPI_Bcast(NULL, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    int last = rank == size - 1;
    mine[0] = rank;
    mine[1] = -rank;
    for (i = 0; i < size; i++) {
        counts[i] = i == size - 1 ? 0 : 2;
        displs[i] = 2 * i;
    }
    for (i = 0; i < 2 * size; i++)
        all[i] = -1;
    MPI_Gatherv(last ? NULL : mine, last ? 0 : 2, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (i = 0; i < size; i++) {
            int w0 = i == size - 1 ? -1 : i, w1 = i == size - 1 ? -1 : -i;
            CHECK(all[2 * i] == w0 && all[2 * i + 1] == w1, "gatherv slot %d\n", i);
        }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_zero_count: OK\n");
    MPI_Finalize();
    return total != 0;
}
