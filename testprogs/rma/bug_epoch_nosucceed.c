// ranks: 2
//
// bug_epoch_nosucceed.c: a time-step loop with the fence at the top of
// each step, which asserts MPI_MODE_NOSUCCEED on the last step, as if it
// were the fence after the loop: the last step's MPI_Put follows a fence
// that said no RMA call would. MPI-4.1 §12.5.5: MPI_MODE_NOSUCCEED
// asserts that the fence starts no sequence of locally issued RMA calls;
// §12.5: RMA calls occur only within an access epoch. MPICH and Open MPI
// fail that MPI_Put with MPI_ERR_RMA_SYNC (MPI_ERRORS_RETURN on the
// window). mpidbg must report fence-assert-nosucceed at the MPI_Put, with
// the fence as the related place.
#include <mpi.h>
#include <stdio.h>

#define N 16
#define STEPS 3

int main(int argc, char **argv)
{
    int rank, size, step, i, failed = 0, *halo, edge[N];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &halo, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    for (step = 0; step < STEPS; step++) {
        MPI_Win_fence(step == STEPS - 1 ? MPI_MODE_NOSUCCEED : 0, win);
        for (i = 0; i < N; i++)
            edge[i] = 100 * step + 10 * rank + i;
        if (MPI_Put(edge, N, MPI_INT, right, 0, N, MPI_INT, win) != MPI_SUCCESS) // want "fence-assert-nosucceed" "asserted MPI_MODE_NOSUCCEED"
            failed++;
    }
    MPI_Win_fence(0, win);
    if (halo[0] != 100 * (STEPS - 2) + 10 * left || failed != 1)
        printf("rank %d: halo[0] = %d, %d puts failed\n", rank, halo[0], failed);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
