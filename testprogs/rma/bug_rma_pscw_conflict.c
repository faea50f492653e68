// ranks: 3
//
// bug_rma_pscw_conflict.c: rank 0 exposes its window to ranks 1 and 2
// (MPI_Win_post/MPI_Win_wait); in their access epochs
// (MPI_Win_start/MPI_Win_complete) both put into word 1 of it. MPI-4.1
// §12.7: the two puts are concurrent (one exposure epoch orders nothing
// among its origins) and conflict; rank 0 ends with either value. mpidbg
// must report rma-conflict at the MPI_Put (rank 1's; rank 2's, the same
// line, is the related place).
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, zero = 0, peers[2] = {1, 2};
    MPI_Win win;
    MPI_Group world, others, root;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 2, peers, &others);
    MPI_Group_incl(world, 1, &zero, &root);

    int *slots = calloc(4, sizeof *slots);
    MPI_Win_create(slots, 4 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_post(others, 0, win);
        MPI_Win_wait(win);
    } else {
        MPI_Win_start(root, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, 1, 1, MPI_INT, win); // want "rma-conflict"
        MPI_Win_complete(win);
    }
    MPI_Win_free(&win);
    MPI_Group_free(&others);
    MPI_Group_free(&root);
    MPI_Group_free(&world);
    free(slots);
    MPI_Finalize();
    return 0;
}
