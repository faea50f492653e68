// ranks: 3
//
// bug_rma_acc_op_mismatch.c: in one fence epoch rank 1 adds to word 0 of
// rank 0's window with MPI_Accumulate(MPI_SUM) while rank 2 applies
// MPI_MAX to it. MPI-4.1 §12.7: concurrent accumulates are atomic only
// with the same operation (the default accumulate_ops is same_op_no_op),
// so these conflict. mpidbg must report rma-conflict at rank 1's
// MPI_Accumulate, with rank 2's as the related place.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, v = 5;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int *slots = calloc(4, sizeof *slots);
    MPI_Win_create(slots, 4 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win); // want "rma-conflict" "accumulates with different operations"
    if (rank == 2)
        MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAX, win); // related "rma-conflict"
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(slots);
    MPI_Finalize();
    return 0;
}
