// ranks: 4
//
// bug_rma_conflict_beside_counter.c: a task farm through one-sided
// operations. Rank 0 holds a task counter and a done counter in one
// window; rank 1 holds the results in another. Workers 2 and 3 take a
// task with MPI_Fetch_and_op(MPI_SUM) on the counter, compute, put the
// result into rank 1's window, flush, and count the task done with
// MPI_Accumulate(MPI_SUM) on the done counter. The result's slot should
// be the task number; the workers use the task number divided by the
// number of tasks, 0 for both, so their puts write the same slot.
// Breaks MPI-4.1 §12.7: the two puts are in passive-target epochs
// (MPI_Win_lock_all) that nothing orders, and they write the same bytes.
// The atomics at rank 0 order nothing at rank 1: neither worker reads
// what the other wrote there before it puts.
// Expected: rma-conflict at the MPI_Put (rank 2's or rank 3's).
#include <mpi.h>

enum { TASKS = 2 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *counters, *results;
    MPI_Win cwin, rwin;
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counters, &cwin);
    MPI_Win_allocate(TASKS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &results, &rwin);
    counters[0] = counters[1] = 0;
    for (int i = 0; i < TASKS; i++)
        results[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, cwin);
    MPI_Win_lock_all(0, rwin);
    if (rank >= 2) {
        int one = 1, task, done;
        MPI_Fetch_and_op(&one, &task, MPI_INT, 0, 0, MPI_SUM, cwin);
        MPI_Win_flush(0, cwin);
        int result = 100 + task;
        MPI_Put(&result, 1, MPI_INT, 1, task / TASKS, 1, MPI_INT, rwin); // want "rma-conflict"
        MPI_Win_flush(1, rwin);
        MPI_Fetch_and_op(&one, &done, MPI_INT, 0, 1, MPI_SUM, cwin);
        MPI_Win_flush(0, cwin);
    }
    MPI_Win_unlock_all(rwin);
    MPI_Win_unlock_all(cwin);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&rwin);
    MPI_Win_free(&cwin);
    MPI_Finalize();
    return 0;
}
