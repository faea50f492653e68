// ranks: 3
//
// bug_rma_two_origins.c: ranks 1 and 2 both put their rank into word 0 of
// rank 0's window in the same fence epoch. MPI-4.1 §12.7: concurrent
// conflicting accesses to the same memory location in a window are
// erroneous (only accumulates with the same operation and basic datatype
// may be concurrent); rank 0 ends with 1, 2 or, for wider data, a mix.
// mpidbg must report rma-conflict at the MPI_Put (the first origin's
// call; the second origin's call, the same line, is the related place).
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int *slots = calloc(4, sizeof *slots);
    MPI_Win_create(slots, 4 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank != 0)
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win); // want "rma-conflict"
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(slots);
    MPI_Finalize();
    return 0;
}
