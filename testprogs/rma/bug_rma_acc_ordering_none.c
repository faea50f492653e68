// ranks: 3
//
// bug_rma_acc_ordering_none.c: the window is made with the info
// accumulate_ordering=none, which promises MPI that the program does not
// rely on the order of one origin's accumulates (MPI-4.1 §12.7.2). Each
// worker then resets its slot of rank 0's histogram with
// MPI_Accumulate(MPI_REPLACE) and adds its first count with
// MPI_Accumulate(MPI_SUM) in the same passive-target epoch: without the
// ordering the two are concurrent, and concurrent accumulates to one
// location are atomic only with the same op (§12.7.1, accumulate_ops
// same_op_no_op by default); the slot may end up 0 or 7. mpidbg must
// report rma-conflict at the MPI_REPLACE, with the MPI_SUM as the related
// place (both of the same rank).
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, zero = 0, seven = 7;
    MPI_Win win;
    MPI_Info info;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int *hist = calloc(8, sizeof *hist);
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ordering", "none");
    MPI_Win_create(hist, 8 * sizeof *hist, sizeof *hist, info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);
    if (rank != 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Accumulate(&zero, 1, MPI_INT, 0, rank, 1, MPI_INT, MPI_REPLACE, win); // want "rma-conflict" "accumulate_ordering does not order these two"
        MPI_Accumulate(&seven, 1, MPI_INT, 0, rank, 1, MPI_INT, MPI_SUM, win); // related "rma-conflict"
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(hist);
    MPI_Finalize();
    return 0;
}
