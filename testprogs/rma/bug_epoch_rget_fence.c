// ranks: 2
//
// bug_epoch_rget_fence.c: a fence-synchronised exchange that fetches the
// neighbour's block with MPI_Rget and waits for the request, to use the
// data before the closing fence. MPI-4.1 §12.3.5: request-based RMA
// operations are only valid within a passive target epoch (MPI_Win_lock,
// MPI_Win_lock_all). MPICH and Open MPI take the call in a fence epoch
// anyway, so the program runs; on a library that enforces the rule it
// fails. mpidbg must report rma-outside-epoch at the MPI_Rget.
#include <mpi.h>
#include <stdio.h>

#define N 4

int main(int argc, char **argv)
{
    int rank, size, i, *mine, got[N];
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size;

    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (i = 0; i < N; i++)
        mine[i] = 10 * rank + i;

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Rget(got, N, MPI_INT, right, 0, N, MPI_INT, win, &req); // want "rma-outside-epoch" "only valid in a passive-target epoch .* is in a fence epoch"
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int sum = 0;
    for (i = 0; i < N; i++)
        sum += got[i];
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (sum != 40 * right + 6)
        printf("rank %d: sum %d\n", rank, sum);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
