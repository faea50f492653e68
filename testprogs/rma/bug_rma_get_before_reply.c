// ranks: 3
//
// bug_rma_get_before_reply.c: a master hands out work and collects the
// results with one-sided gets. For each worker, rank 0 sends the task,
// reads the worker's result slot with MPI_Get under MPI_Win_lock, and only
// then receives the worker's "done" message; each worker receives its
// task, stores the result into its window and sends "done". The get is
// not ordered after the worker's store: the task message orders the
// store after the master's send, not before the get, and the "done"
// message arrives after the get completed (MPI-4.1 §12.7: a location a
// get reads must not be stored to concurrently; §12.5.3: only
// synchronisation orders a target's accesses against a passive-target
// epoch). The master may read the old value. mpidbg must report
// rma-target-race at the workers' store, with rank 0's MPI_Get as the
// related place.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TASK = 0, DONE = 1 };

int main(int argc, char **argv)
{
    int rank, size, *slot;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Win_allocate(64 * sizeof *slot, sizeof *slot, MPI_INFO_NULL, MPI_COMM_WORLD, &slot, &win); /* the result, then room for more */
    *slot = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int sum = 0;
        for (int w = 1; w < size; w++) {
            int task = 10 * w, result = -1, done;
            MPI_Send(&task, 1, MPI_INT, w, TASK, MPI_COMM_WORLD);
            MPI_Win_lock(MPI_LOCK_SHARED, w, 0, win);
            MPI_Get(&result, 1, MPI_INT, w, 0, 1, MPI_INT, win); // related "rma-target-race"
            MPI_Win_unlock(w, win);
            MPI_Recv(&done, 1, MPI_INT, w, DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += result;
        }
        if (sum < -size) /* the old values or the new ones */
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else {
        int task, done = 1;
        MPI_Recv(&task, 1, MPI_INT, 0, TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        *(volatile int *)slot = task * task; // want "rma-target-race" "stores to its own window memory .* while rank 0's MPI_Get reads the same bytes"
        MPI_Send(&done, 1, MPI_INT, 0, DONE, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
