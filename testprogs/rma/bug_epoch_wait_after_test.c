// ranks: 2
//
// bug_epoch_wait_after_test.c: rank 1 exposes its window to rank 0 and
// overlaps the wait with work, polling MPI_Win_test; when the loop ends
// (the test returned true, which closed the exposure epoch) it calls
// MPI_Win_wait "to be sure". MPI-4.1 §12.5.2: MPI_Win_test returning
// true has the effect of MPI_Win_wait, and MPI_Win_wait completes an
// exposure epoch MPI_Win_post started; none is open any more. MPICH and
// Open MPI fail the MPI_Win_wait with MPI_ERR_RMA_SYNC (MPI_ERRORS_RETURN
// on the window). mpidbg must report wait-without-post at the
// MPI_Win_wait, with the MPI_Win_test as the related place.
#include <mpi.h>
#include <stdio.h>

#define N 16

int main(int argc, char **argv)
{
    int rank, i, *inbox, block[N], zero = 0, one = 1, flag = 0;
    long work = 0;
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
            block[i] = 5 * i;
        MPI_Win_start(g1, 0, win);
        MPI_Put(block, N, MPI_INT, 1, 0, N, MPI_INT, win);
        MPI_Win_complete(win);
    } else if (rank == 1) {
        MPI_Win_post(g0, 0, win);
        while (!flag) {
            MPI_Win_test(win, &flag);
            work++;
        }
        MPI_Win_wait(win); // want "wait-without-post" "the last one was already ended by the MPI_Win_test related"
        if (inbox[N - 1] != 5 * (N - 1) || work < 1)
            printf("rank 1: inbox[%d] = %d\n", N - 1, inbox[N - 1]);
    }

    MPI_Win_free(&win);
    MPI_Group_free(&g0);
    MPI_Group_free(&g1);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
