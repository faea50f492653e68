// ranks: 2
// native[mpich]: hangs
//
// bug_deadlock_win_free_locked.c: rank 0 deposits its partial results in
// rank 1's window under an exclusive lock, and forgets the MPI_Win_unlock
// that ends the epoch; both ranks then free the window.
// Breaks MPI-4.1 §12.2.5: MPI_Win_free may be called only after the
// process completed its involvement in RMA on the window (MPI_Win_unlock
// after MPI_Win_lock).
// Expected: epoch-left-open at rank 0's MPI_Win_free, before MPI sees the
// call. What follows differs, and mpidbg ends the job either way:
//   - MPICH fails rank 0's MPI_Win_free with MPI_ERR_RMA_SYNC
//     (MPI_ERRORS_RETURN on the window), so the window stays open
//     (epoch-left-open again at MPI_Finalize) and rank 0 goes on to
//     MPI_Finalize while rank 1 waits in its MPI_Win_free for rank 0:
//     deadlock at rank 0's MPI_Finalize;
//   - Open MPI's MPI_Win_free never returns: the wait-for graph sees both
//     ranks in the same MPI_Win_free, but rank 0 waits in the call that
//     reported the open epoch, and mpidbg ends the job after the deadlock
//     timeout with a note saying so.
//
// Natively MPICH hangs; Open MPI completes here (with other transports
// its MPI_Win_free hangs too).
#include <mpi.h>

#define N 32

int main(int argc, char **argv)
{
    int rank, i;
    double part[N], store[N];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (i = 0; i < N; i++)
        part[i] = store[i] = 0.5 * i + rank;
    MPI_Win_create(store, sizeof store, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(part, N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win);
        // bug: MPI_Win_unlock(1, win) is missing
    }
    MPI_Win_free(&win); // want "epoch-left-open"

    MPI_Finalize(); // want[mpich] "epoch-left-open" "deadlock"
    return store[0] < 0;
}
