// ranks: 3
//
// bug_epoch_unlock_all_unlocked.c: a non-periodic chain in which every
// rank reads its left neighbour's boundary value under MPI_Win_lock_all.
// Rank 0 has no left neighbour and skips the lock, but the
// MPI_Win_unlock_all after the read is unconditional. MPI-4.1 §12.5.3:
// MPI_Win_unlock_all completes an access epoch started by
// MPI_Win_lock_all; rank 0 has none. MPICH and Open MPI fail the call with
// MPI_ERR_RMA_SYNC (MPI_ERRORS_RETURN on the window). mpidbg must report
// unlock-without-lock at the MPI_Win_unlock_all, on rank 0 only.
#include <mpi.h>
#include <stdio.h>

#define N 16

int main(int argc, char **argv)
{
    int rank, i, *cells, halo = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &cells, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (i = 0; i < N; i++)
        cells[i] = 100 * rank + i;
    MPI_Barrier(MPI_COMM_WORLD);

    int left = rank - 1;
    if (left >= 0) {
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        MPI_Get(&halo, 1, MPI_INT, left, N - 1, 1, MPI_INT, win);
    }
    MPI_Win_unlock_all(win); // want "unlock-without-lock" "no access epoch MPI_Win_lock_all opened is open on the window"

    if (left >= 0 && halo != 100 * left + N - 1)
        printf("rank %d: halo %d\n", rank, halo);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
