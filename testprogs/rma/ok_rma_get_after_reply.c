// ranks: 3
//
// ok_rma_get_after_reply.c: the correct twin of bug_rma_get_before_reply.c
// and its mirror. A master sends each worker its task and waits for the
// worker's "done" message before it reads the worker's result slot with
// MPI_Get under MPI_Win_lock: the worker's store, then its send, then the
// master's receive, then the get are ordered (MPI-4.1 §12.7). Then the
// other way round: the master gets the slot, unlocks, and only then tells
// the worker it may overwrite it; the worker stores after receiving that.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

enum { TASK = 0, DONE = 1, FREE = 2 };

int main(int argc, char **argv)
{
    int rank, size, total, *slot;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Win_allocate(64 * sizeof *slot, sizeof *slot, MPI_INFO_NULL, MPI_COMM_WORLD, &slot, &win); /* the result, then room for more */
    *slot = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int round = 0; round < 2; round++) {
        if (rank == 0) {
            for (int w = 1; w < size; w++) {
                int task = 10 * w + round, result = -1, done, go = 1;
                MPI_Send(&task, 1, MPI_INT, w, TASK, MPI_COMM_WORLD);
                MPI_Recv(&done, 1, MPI_INT, w, DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Win_lock(MPI_LOCK_SHARED, w, 0, win);
                MPI_Get(&result, 1, MPI_INT, w, 0, 1, MPI_INT, win);
                MPI_Win_unlock(w, win);
                CHECK(result == task * task, "rank 0: worker %d gave %d in round %d\n", w, result, round);
                MPI_Send(&go, 1, MPI_INT, w, FREE, MPI_COMM_WORLD);
            }
        } else {
            int task, done = 1, go;
            MPI_Recv(&task, 1, MPI_INT, 0, TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            *(volatile int *)slot = task * task;
            MPI_Send(&done, 1, MPI_INT, 0, DONE, MPI_COMM_WORLD);
            MPI_Recv(&go, 1, MPI_INT, 0, FREE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            *(volatile int *)slot = -1; /* the master has read it: free to reuse */
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_get_after_reply: OK\n");
    MPI_Finalize();
    return total != 0;
}
