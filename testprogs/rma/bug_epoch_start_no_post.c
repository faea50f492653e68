// ranks: 2
// native: hangs
//
// bug_epoch_start_no_post.c: rank 0 sends a block to rank 1 with
// MPI_Win_start/MPI_Put/MPI_Win_complete, but rank 1, whose exposure was
// meant to be set up by a flag it computes wrongly, never calls
// MPI_Win_post and goes on to MPI_Win_free. MPI-4.1 §12.5.2: each process
// in the start group must issue a matching MPI_Win_post. The origin waits
// for the post (in MPI_Win_start with both libraries) and the target in
// the collective MPI_Win_free: the job hangs. Neither process can tell
// locally (a post may come late: weak synchronisation), so it is not an
// epoch-lifecycle finding; the deadlock detector sees the origin wait for
// its start group and the target for the window's collective, and must
// report deadlock at rank 0's MPI_Win_start, then end the job.
#include <mpi.h>
#include <stdio.h>

#define N 16

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
    for (i = 0; i < N; i++)
        inbox[i] = -1;
    int expose = rank == 1 && N < 0; /* bug: meant N > 0 */
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        for (i = 0; i < N; i++)
            block[i] = i;
        MPI_Win_start(g1, 0, win); // want "deadlock" "MPI_Win_start\(target=1\) waits for rank 1"
        MPI_Put(block, N, MPI_INT, 1, 0, N, MPI_INT, win);
        MPI_Win_complete(win);
    } else if (expose) {
        MPI_Win_post(g0, 0, win);
        MPI_Win_wait(win);
    }

    MPI_Win_free(&win);
    if (rank == 1 && inbox[0] != 0)
        printf("rank 1: inbox[0] = %d\n", inbox[0]);
    MPI_Group_free(&g0);
    MPI_Group_free(&g1);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
