// ranks: 2
//
// bug_epoch_flush_fence.c: a fence-synchronised ring shift that calls
// MPI_Win_flush after its MPI_Put "to make sure the data arrived" before
// the closing fence. MPI-4.1 §12.5.4: the flush calls are valid only
// within passive-target epochs (MPI_Win_lock, MPI_Win_lock_all); the
// closing MPI_Win_fence completes the put. MPICH and Open MPI fail the
// MPI_Win_flush with MPI_ERR_RMA_SYNC (MPI_ERRORS_RETURN on the window).
// mpidbg must report flush-outside-lock at the MPI_Win_flush.
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
    for (i = 0; i < N; i++)
        block[i] = 10 * rank + i;

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(block, N, MPI_INT, right, 0, N, MPI_INT, win);
    MPI_Win_flush(right, win); // want "flush-outside-lock" "no passive-target epoch covers target rank"
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (inbox[N - 1] != 10 * left + N - 1)
        printf("rank %d: inbox[%d] = %d\n", rank, N - 1, inbox[N - 1]);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
