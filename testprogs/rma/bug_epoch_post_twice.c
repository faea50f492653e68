// ranks: 2
//
// bug_epoch_post_twice.c: rank 1 exposes its window to rank 0 for one
// transfer. A setup helper posts the exposure epoch, and the caller, which
// used to post itself, posts it again before waiting. MPI-4.1 §12.5:
// distinct exposure epochs of one window at a process must be disjoint;
// the first MPI_Win_post epoch is still open. MPICH and Open MPI fail the
// second MPI_Win_post with MPI_ERR_RMA_SYNC (MPI_ERRORS_RETURN on the
// window), and the transfer goes through the first epoch. mpidbg must
// report post-twice at the caller's MPI_Win_post, with the helper's as
// the related place.
#include <mpi.h>
#include <stdio.h>

#define N 16

static void expose(MPI_Win win, MPI_Group from, int *inbox)
{
    for (int i = 0; i < N; i++)
        inbox[i] = -1;
    MPI_Win_post(from, 0, win);
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
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        for (i = 0; i < N; i++)
            block[i] = 2 * i + 1;
        MPI_Win_start(g1, 0, win);
        MPI_Put(block, N, MPI_INT, 1, 0, N, MPI_INT, win);
        MPI_Win_complete(win);
    } else if (rank == 1) {
        expose(win, g0, inbox);
        MPI_Win_post(g0, 0, win); // want "post-twice" "the exposure epoch of an earlier MPI_Win_post .* is still open"
        MPI_Win_wait(win);
        if (inbox[N - 1] != 2 * N - 1)
            printf("rank 1: inbox[%d] = %d\n", N - 1, inbox[N - 1]);
    }

    MPI_Win_free(&win);
    MPI_Group_free(&g0);
    MPI_Group_free(&g1);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
