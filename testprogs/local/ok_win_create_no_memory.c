// ranks: 3
//
// ok_win_create_no_memory.c: the correct twin of
// bug_invalid_window_memory.c, over MPI_COMM_WORLD. Only rank 0 exposes
// memory; the others pass NULL with size 0, which MPI-4.1 §12.2.1 allows
// ("a process may elect to expose no memory by specifying size = 0"),
// and read rank 0's table with MPI_Get. Then MPI_Win_allocate gives every
// rank but 0 a window with displacement unit 1, the smallest allowed
// (§12.2.2). mpidbg must report nothing.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 64 };

int main(int argc, char **argv)
{
    int rank;
    double *table = NULL, row[4];
    char *bytes;
    MPI_Win win, bwin;

    int errors = 0, total;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        table = malloc(N * sizeof *table);
        for (int i = 0; i < N; i++)
            table[i] = i * 0.5;
    }
    MPI_Win_create(table, rank == 0 ? N * sizeof(double) : 0, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    if (rank != 0)
        MPI_Get(row, 4, MPI_DOUBLE, 0, 4 * rank, 4, MPI_DOUBLE, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank != 0 && row[0] != 2.0 * rank) {
        printf("rank %d: row[0] %g\n", rank, row[0]);
        errors++;
    }
    MPI_Win_free(&win);

    MPI_Win_allocate(rank == 0 ? 0 : 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bytes, &bwin);
    MPI_Win_free(&bwin);
    free(table);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_win_create_no_memory: OK\n");
    MPI_Finalize();
    return total != 0;
}
