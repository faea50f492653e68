// ranks: 3
//
// bug_rma_lock_target_load.c: rank 1 puts into word 3 of rank 0's window
// in a passive-target epoch (MPI_Win_lock/MPI_Win_unlock, shared) while
// rank 0 reads that word with a plain load; nothing orders the two (the
// barrier before both does not, and the one after comes too late).
// MPI-4.1 §12.7: a location updated by a put must not be accessed by a
// load at the target until the update completed there and a
// synchronisation ordered the access after it; the load may see the old
// value, the new one or a mix. Rank 2 puts into word 5, which nobody
// reads: no finding. mpidbg must report rma-target-race at rank 0's load,
// with rank 1's MPI_Put as the related place.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, value = 42, seen = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int *slots = calloc(1024, sizeof *slots);
    MPI_Win_create(slots, 1024 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&value, 1, MPI_INT, 0, 3, 1, MPI_INT, win); // related "rma-target-race"
        MPI_Win_unlock(0, win);
    } else if (rank == 2) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&value, 1, MPI_INT, 0, 5, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    } else {
        seen = slots[3]; // want "rma-target-race"
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (seen < 0) /* 0 or 42: the load is used */
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Win_free(&win);
    free(slots);
    MPI_Finalize();
    return 0;
}
