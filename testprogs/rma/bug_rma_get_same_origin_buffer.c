// ranks: 3
//
// bug_rma_get_same_origin_buffer.c: rank 0 gathers the boundary rows of
// its two neighbours with MPI_Get in one fence epoch, but gives both gets
// the same scratch row (the offset for the second neighbour is missing).
// Both operations write that buffer until the closing fence completes
// them, in an order MPI does not define. MPI-4.1 §12.3: the buffer a get
// writes must not be accessed until the operation completes at the
// origin, and §3.7.2 says the same of a pending receive's buffer. mpidbg
// must report buffer-overlap at the second MPI_Get, before MPI sees it,
// with the first as the related place.
#include <mpi.h>
#include <stdlib.h>

enum { COLS = 16 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    double *row = malloc(COLS * sizeof *row);
    for (int i = 0; i < COLS; i++)
        row[i] = rank + i / 100.0;
    double *halo = calloc(2 * COLS, sizeof *halo); /* left neighbour's row, then the right one's */
    MPI_Win_create(row, COLS * sizeof *row, sizeof *row, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        int left = size - 1, right = 1;
        MPI_Get(halo, COLS, MPI_DOUBLE, left, 0, COLS, MPI_DOUBLE, win); // related "buffer-overlap"
        MPI_Get(halo, COLS, MPI_DOUBLE, right, 0, COLS, MPI_DOUBLE, win); // want "buffer-overlap" "origin_addr writes memory that the MPI_Get still in progress also writes"
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(row);
    free(halo);
    MPI_Finalize();
    return 0;
}
