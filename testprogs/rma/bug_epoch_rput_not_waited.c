// ranks: 2
//
// bug_epoch_rput_not_waited.c: each rank pushes a block into its right
// neighbour's window with MPI_Rput under MPI_Win_lock_all and completes
// the epoch with MPI_Win_unlock_all, but never waits for (or frees) the
// request. MPI-4.1 §12.3.5: the request of a request-based RMA operation
// is completed with MPI_Wait/MPI_Test like any other; MPI_Win_unlock_all
// completes the operation, not the request; §11.2.2: every request must
// be completed before MPI_Finalize. It is not an epoch-lifecycle finding:
// closing the epoch with the request pending is legal, and waiting for
// it afterwards returns at once. mpidbg's request check covers it:
// request-never-completed, reported at MPI_Finalize against the line that
// started the operation (the MPI_Rput).
#include <mpi.h>
#include <stdio.h>

#define N 16

int main(int argc, char **argv)
{
    int rank, size, i, *inbox;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static int block[N];
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &inbox, &win);
    for (i = 0; i < N; i++) {
        inbox[i] = -1;
        block[i] = 10 * rank + i;
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    MPI_Rput(block, N, MPI_INT, right, 0, N, MPI_INT, win, &req); // want "request-never-completed"
    MPI_Win_unlock_all(win);
    // bug: no MPI_Wait(&req, MPI_STATUS_IGNORE)
    MPI_Barrier(MPI_COMM_WORLD);
    if (inbox[N - 1] != 10 * left + N - 1)
        printf("rank %d: inbox[%d] = %d\n", rank, N - 1, inbox[N - 1]);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
