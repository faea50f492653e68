// ranks: 2
//
// bug_epoch_lock_all_mixed.c: rank 0 pushes its block to every rank in
// one MPI_Win_lock_all epoch, then takes MPI_Win_lock on rank 1 to update
// a flag there, inside that epoch. MPI-4.1 §12.5.3: MPI_Win_lock_all
// already opened an access epoch to every process of the window, and each
// access epoch must target a different process. MPICH fails the
// MPI_Win_lock with MPI_ERR_RMA_SYNC; Open MPI 4.1 takes it. The program
// unlocks only when its lock succeeded (MPI_ERRORS_RETURN on the window),
// so it runs with both. mpidbg must report lock-all-mixed at the
// MPI_Win_lock, with the MPI_Win_lock_all as the related place.
#include <mpi.h>
#include <stdio.h>

#define N 4
#define WIN 16 /* ints: MPICH 4.0.2 misplaces accesses in windows not a multiple of 16 bytes */

int main(int argc, char **argv)
{
    int rank, size, r, i, *mine, block[N], one = 1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(WIN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (i = 0; i <= N; i++)
        mine[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        for (i = 0; i < N; i++)
            block[i] = i + 1;
        MPI_Win_lock_all(0, win);
        for (r = 1; r < size; r++)
            MPI_Put(block, N, MPI_INT, r, 0, N, MPI_INT, win);
        MPI_Win_flush_all(win);
        int locked = MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win) == MPI_SUCCESS; // want "lock-all-mixed" "locked with MPI_Win_lock_all .* already covers target rank 1"
        MPI_Accumulate(&one, 1, MPI_INT, 1, N, 1, MPI_INT, MPI_REPLACE, win);
        if (locked)
            MPI_Win_unlock(1, win);
        MPI_Win_unlock_all(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && (mine[N] != 1 || mine[N - 1] != N))
        printf("rank 1: flag %d, last %d\n", mine[N], mine[N - 1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
