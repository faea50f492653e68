// ranks: 2
//
// bug_epoch_free_locked.c: each rank pushes a block into its right
// neighbour's window in an MPI_Win_lock_all epoch and completes the puts
// with MPI_Win_flush_all, then a barrier, the check and MPI_Win_free;
// the MPI_Win_unlock_all that ends the epoch is missing (the flush
// completes the operations, not the epoch). MPI-4.1 §12.2.5:
// MPI_Win_free may be called only after the process completed its
// involvement in RMA on the window (MPI_Win_unlock_all after
// MPI_Win_lock_all). MPICH fails MPI_Win_free with MPI_ERR_RMA_SYNC
// (MPI_ERRORS_RETURN on the window: the program then unlocks and frees
// again); Open MPI 4.1 frees the window. mpidbg must report
// epoch-left-open at the first MPI_Win_free, with the MPI_Win_lock_all as
// the related place.
#include <mpi.h>
#include <stdio.h>

#define N 16

int main(int argc, char **argv)
{
    int rank, size, i, *inbox, block[N];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &inbox, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (i = 0; i < N; i++) {
        inbox[i] = -1;
        block[i] = 1000 * rank + i;
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    MPI_Put(block, N, MPI_INT, right, 0, N, MPI_INT, win);
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    if (inbox[N - 1] != 1000 * left + N - 1)
        printf("rank %d: inbox[%d] = %d\n", rank, N - 1, inbox[N - 1]);

    if (MPI_Win_free(&win) != MPI_SUCCESS) { // want "epoch-left-open" "the access epoch MPI_Win_lock_all opened .* is still open"
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }
    MPI_Finalize();
    return 0;
}
