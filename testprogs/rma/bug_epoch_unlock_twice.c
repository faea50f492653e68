// ranks: 2
//
// bug_epoch_unlock_twice.c: a counter kept in rank 0's window, which every
// rank bumps with MPI_Fetch_and_op under an exclusive lock. The helper
// that bumps it unlocks the target itself, and its caller, written for an
// older helper that did not, unlocks it again. MPI-4.1 §12.5.3:
// MPI_Win_unlock completes the access epoch an MPI_Win_lock on that rank
// started; there is none left. MPICH and Open MPI fail the second unlock
// with MPI_ERR_RMA_SYNC (MPI_ERRORS_RETURN on the window). mpidbg must
// report unlock-without-lock at the caller's MPI_Win_unlock.
#include <mpi.h>
#include <stdio.h>

static int bump(MPI_Win win, int owner)
{
    int one = 1, old = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, owner, 0, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT, owner, 0, MPI_SUM, win);
    MPI_Win_unlock(owner, win);
    return old;
}

int main(int argc, char **argv)
{
    int rank, size, *counter;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    int ticket = bump(win, 0);
    MPI_Win_unlock(0, win); // want "unlock-without-lock" "target rank 0 is not locked by this process"

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && *counter != size)
        printf("counter %d, want %d\n", *counter, size);
    if (ticket < 0 || ticket >= size)
        printf("rank %d: ticket %d\n", rank, ticket);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
