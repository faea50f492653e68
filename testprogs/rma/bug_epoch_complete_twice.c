// ranks: 2
//
// bug_epoch_complete_twice.c: rank 0 sends a block to rank 1 with
// post/start/complete/wait through a helper that opens and closes the
// access epoch itself; the caller, written for an older helper that left
// the epoch open, calls MPI_Win_complete again. MPI-4.1 §12.5.2:
// MPI_Win_complete completes an access epoch started by MPI_Win_start;
// none is open. MPICH fails the call with MPI_ERR_RMA_SYNC
// (MPI_ERRORS_RETURN on the window); Open MPI 4.1 returns success. mpidbg
// must report complete-without-start at the caller's MPI_Win_complete,
// with the helper's MPI_Win_complete as the related place.
#include <mpi.h>
#include <stdio.h>

#define N 16

static void send_block(MPI_Win win, MPI_Group to, int target, const int *block)
{
    MPI_Win_start(to, 0, win);
    MPI_Put(block, N, MPI_INT, target, 0, N, MPI_INT, win);
    MPI_Win_complete(win);
}

int main(int argc, char **argv)
{
    int rank, i, *inbox, block[N], zero = 0, one = 1;
    MPI_Win win;
    MPI_Group world, g0, g1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &zero, &g0);
    MPI_Group_incl(world, 1, &one, &g1);
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &inbox, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (i = 0; i < N; i++)
        inbox[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        for (i = 0; i < N; i++)
            block[i] = i + 7;
        send_block(win, g1, 1, block);
        MPI_Win_complete(win); // want "complete-without-start" "the last one was already ended by the MPI_Win_complete related"
    } else if (rank == 1) {
        MPI_Win_post(g0, 0, win);
        MPI_Win_wait(win);
        if (inbox[0] != 7)
            printf("rank 1: inbox[0] = %d\n", inbox[0]);
    }

    MPI_Win_free(&win);
    MPI_Group_free(&g0);
    MPI_Group_free(&g1);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
