// ranks: 2
//
// bug_rma_target_store.c: rank 0 puts into word 2 of rank 1's window in a
// fence epoch while rank 1, in the same epoch, stores into that word
// itself. MPI-4.1 §12.7: a location updated by a put must not be accessed
// by a load or store at the target until the update completes there, and
// local stores and remote updates of one location are ordered only by
// synchronisation; whichever value lands last remains. mpidbg must report
// rma-target-race at rank 1's store, with rank 0's MPI_Put as the related
// place.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, value = 7;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int *slots = calloc(1024, sizeof *slots);
    MPI_Win_create(slots, 1024 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&value, 1, MPI_INT, 1, 2, 1, MPI_INT, win); // related "rma-target-race"
    else
        slots[2] = 5; // want "rma-target-race"
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(slots);
    MPI_Finalize();
    return 0;
}
