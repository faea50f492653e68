// ranks: 2
//
// bug_epoch_noprecede.c: a time-step loop that puts each rank's boundary
// into its neighbour's halo between fences, with the fence at the top of
// the loop copied from the first one: every fence asserts
// MPI_MODE_NOPRECEDE, also those that close the previous step's puts.
// MPI-4.1 §12.5.5: MPI_MODE_NOPRECEDE asserts that the fence completes
// no sequence of locally issued RMA calls; incorrect assertions are
// erroneous. MPICH and Open MPI accept the call (the final fence still
// completes the puts here). mpidbg must report fence-assert-noprecede at
// the fence in the loop, from the second step on, with the first put of
// the step before as the related place.
#include <mpi.h>
#include <stdio.h>

#define N 16
#define STEPS 3

int main(int argc, char **argv)
{
    int rank, size, step, i, *halo, edge[N];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &halo, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    for (step = 0; step < STEPS; step++) {
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win); // want "fence-assert-noprecede" "but 1 RMA call was issued since the previous fence"
        for (i = 0; i < N; i++)
            edge[i] = 100 * step + 10 * rank + i;
        MPI_Put(edge, N, MPI_INT, right, 0, N, MPI_INT, win);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (halo[0] != 100 * (STEPS - 1) + 10 * left)
        printf("rank %d: halo[0] = %d\n", rank, halo[0]);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
