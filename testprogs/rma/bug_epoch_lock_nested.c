// ranks: 2
//
// bug_epoch_lock_nested.c: rank 1 appends a record to rank 0's log under
// a shared lock, and before unlocking calls a helper that reads the log's
// length; the helper locks the same target again. MPI-4.1 §12.5.3: several
// MPI_Win_lock epochs may be open at once, but each must target a
// different process (locks do not nest). MPICH fails the inner lock with
// MPI_ERR_RMA_SYNC; Open MPI 4.1 takes it. The helper unlocks only when its
// lock succeeded (MPI_ERRORS_RETURN on the window), so the program runs
// with both. mpidbg must report lock-twice at the helper's MPI_Win_lock,
// with the outer lock as the related place.
#include <mpi.h>
#include <stdio.h>

#define LOG 15 /* a 16-int window: MPICH 4.0.2 misplaces accesses in windows not a multiple of 16 bytes */

static int log_length(MPI_Win win, int owner)
{
    int n = -1;
    int locked = MPI_Win_lock(MPI_LOCK_SHARED, owner, 0, win) == MPI_SUCCESS; // want "lock-twice" "target rank 0 is already locked by this process"
    MPI_Get(&n, 1, MPI_INT, owner, 0, 1, MPI_INT, win);
    if (locked)
        MPI_Win_unlock(owner, win);
    else
        MPI_Win_flush(owner, win);
    return n;
}

int main(int argc, char **argv)
{
    int rank, *log, rec[2] = {1, 42}, n = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate((LOG + 1) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &log, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    log[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(rec, 2, MPI_INT, 0, 0, 2, MPI_INT, win);
        MPI_Win_flush(0, win);
        n = log_length(win, 0);
        MPI_Win_unlock(0, win);
        if (n != 1)
            printf("rank 1: log length %d\n", n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && (log[0] != 1 || log[1] != 42))
        printf("rank 0: log %d %d\n", log[0], log[1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
