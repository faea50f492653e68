// ranks: 2
//
// bug_epoch_put_no_fence.c: a ring shift in fence epochs whose loop calls
// MPI_Win_fence only at the end of each iteration: the first MPI_Put
// comes before any fence opened an epoch. MPI-4.1 §12.5: RMA
// communication calls must occur only within an access epoch. MPICH and
// Open MPI fail that first MPI_Put with MPI_ERR_RMA_SYNC (the window has
// MPI_ERRORS_RETURN, so the program goes on; the later iterations are in
// the epoch the first fence opened). mpidbg must report rma-outside-epoch
// at the MPI_Put, before MPI sees the call.
#include <mpi.h>
#include <stdio.h>

#define N 4
#define ITERS 3

int main(int argc, char **argv)
{
    int rank, size, it, i, failed = 0, *inbox, block[N];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &inbox, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (i = 0; i < N; i++)
        inbox[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    for (it = 0; it < ITERS; it++) {
        for (i = 0; i < N; i++)
            block[i] = 100 * it + 10 * rank + i;
        // bug: the opening MPI_Win_fence belongs before the loop
        if (MPI_Put(block, N, MPI_INT, right, 0, N, MPI_INT, win) != MPI_SUCCESS) // want "rma-outside-epoch" "no access epoch of this process covers target rank"
            failed++;
        MPI_Win_fence(0, win);
    }
    if (inbox[0] != 100 * (ITERS - 1) + 10 * left)
        printf("rank %d: inbox[0] = %d\n", rank, inbox[0]);
    if (failed != 1)
        printf("rank %d: %d puts failed\n", rank, failed);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
