// ranks: 2
//
// bug_epoch_start_twice.c: rank 0 sends a block to rank 1 with
// post/start/complete/wait. Its caller opens the access epoch with
// MPI_Win_start, then calls a helper that was written to open its own
// epoch and calls MPI_Win_start again; only the caller completes.
// MPI-4.1 §12.5: distinct access epochs of one window at a process must
// be disjoint; the first MPI_Win_start epoch is still open. MPICH and
// Open MPI fail the second MPI_Win_start with MPI_ERR_RMA_SYNC
// (MPI_ERRORS_RETURN on the window), and the put goes in the first epoch.
// mpidbg must report start-epoch-open at the helper's MPI_Win_start, with
// the caller's as the related place.
#include <mpi.h>
#include <stdio.h>

#define N 16

static void send_block(MPI_Win win, MPI_Group to, int target, const int *block)
{
    MPI_Win_start(to, 0, win); // want "start-epoch-open" "the access epoch MPI_Win_start opened is still open"
    MPI_Put(block, N, MPI_INT, target, 0, N, MPI_INT, win);
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
            block[i] = 3 * i;
        MPI_Win_start(g1, 0, win);
        send_block(win, g1, 1, block);
        MPI_Win_complete(win);
    } else if (rank == 1) {
        MPI_Win_post(g0, 0, win);
        MPI_Win_wait(win);
        if (inbox[N - 1] != 3 * (N - 1))
            printf("rank 1: inbox[%d] = %d\n", N - 1, inbox[N - 1]);
    }

    MPI_Win_free(&win);
    MPI_Group_free(&g0);
    MPI_Group_free(&g1);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
