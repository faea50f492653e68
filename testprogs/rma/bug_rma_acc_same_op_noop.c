// ranks: 3
//
// bug_rma_acc_same_op_noop.c: a shared work counter in rank 0's window.
// After creating the window the program tells MPI, with
// MPI_Win_set_info(accumulate_ops=same_op), that concurrent accumulates
// to one location all use the same op (MPI-4.1 §12.2.1), which lets a
// library use hardware atomics that do not cover other ops. Rank 1 then
// takes work with MPI_Fetch_and_op(MPI_SUM) while rank 2 peeks at the
// counter with MPI_Fetch_and_op(MPI_NO_OP), in the same fence epoch:
// MPI_NO_OP is another op, allowed next to MPI_SUM only under the
// default same_op_no_op. The peek is not atomic against the update
// (§12.7.1). mpidbg must report rma-conflict at rank 1's
// MPI_Fetch_and_op, with rank 2's as the related place.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, one = 1, got = -1, *counter;
    MPI_Win win;
    MPI_Info info;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
    *counter = 0;
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ops", "same_op");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Fetch_and_op(&one, &got, MPI_INT, 0, 0, MPI_SUM, win); // want "rma-conflict" "accumulate_ops is same_op"
    else if (rank == 2)
        MPI_Fetch_and_op(NULL, &got, MPI_INT, 0, 0, MPI_NO_OP, win); // related "rma-conflict"
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return got < -1;
}
