// ranks: 3
//
// bug_rma_lock_shared_conflict.c: ranks 1 and 2 each lock rank 0's window
// with MPI_LOCK_SHARED, put into word 0 and unlock, with no
// synchronisation between the two epochs (the barrier comes after both).
// MPI-4.1 §12.7: shared-lock epochs of different origins may overlap, so
// the puts are concurrent and conflict; rank 0 ends with either value.
// mpidbg compares passive-target epochs at MPI_Win_free and must report
// rma-conflict at the MPI_Put (rank 1's; rank 2's is the related place).
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int *slots = calloc(4, sizeof *slots);
    int *val = malloc(sizeof *val);
    *val = rank;
    MPI_Win_create(slots, 4 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank != 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(val, 1, MPI_INT, 0, 0, 1, MPI_INT, win); // want "rma-conflict"
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(val);
    free(slots);
    MPI_Finalize();
    return 0;
}
