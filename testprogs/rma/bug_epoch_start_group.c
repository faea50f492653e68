// ranks: 3
//
// bug_epoch_start_group.c: rank 0 hands a block to every other rank with
// post/start/complete/wait, but builds the groups from a receiver count
// that is one short: the receivers it names in MPI_Win_start (and that
// post) are ranks 1..size-2, while its MPI_Put loop runs to size-1. The
// put to the last rank is outside the access epoch MPI_Win_start opened.
// MPI-4.1 §12.5.2: RMA calls in an MPI_Win_start epoch access only
// windows of processes in its group. MPICH and Open MPI fail that MPI_Put
// with MPI_ERR_RMA_SYNC (MPI_ERRORS_RETURN on the window). mpidbg must
// report rma-outside-epoch at the MPI_Put, with the MPI_Win_start as the
// related place.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8

int main(int argc, char **argv)
{
    int rank, size, r, i, *inbox, block[N];
    MPI_Win win;
    MPI_Group world, receivers, root;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int nrecv = size - 2; /* bug: size - 1 receivers */
    int range[1][3] = {{1, nrecv, 1}};
    MPI_Group_range_incl(world, 1, range, &receivers);
    int zero = 0;
    MPI_Group_incl(world, 1, &zero, &root);

    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &inbox, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (i = 0; i < N; i++)
        inbox[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        for (i = 0; i < N; i++)
            block[i] = i * i;
        MPI_Win_start(receivers, 0, win);
        for (r = 1; r < size; r++)
            MPI_Put(block, N, MPI_INT, r, 0, N, MPI_INT, win); // want "rma-outside-epoch" "target rank 2 is not in the group of the access epoch MPI_Win_start opened"
        MPI_Win_complete(win);
    } else if (rank <= nrecv) {
        MPI_Win_post(root, 0, win);
        MPI_Win_wait(win);
        if (inbox[N - 1] != (N - 1) * (N - 1))
            printf("rank %d: inbox[%d] = %d\n", rank, N - 1, inbox[N - 1]);
    }

    MPI_Win_free(&win);
    MPI_Group_free(&receivers);
    MPI_Group_free(&root);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
