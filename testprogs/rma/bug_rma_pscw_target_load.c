// ranks: 2
//
// bug_rma_pscw_target_load.c: rank 1 exposes its window to rank 0
// (MPI_Win_post), which puts into word 3 of it; rank 1 reads that word
// before MPI_Win_wait. MPI-4.1 §12.7 and §12.5.2: the put may update the
// target at any time until the exposure epoch ends at MPI_Win_wait, and a
// location a put updates must not be loaded until then; rank 1 may see
// the old value or the new one. mpidbg must report rma-target-race at
// rank 1's load, with rank 0's MPI_Put as the related place.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, v = 9, seen = 0, zero = 0, one = 1;
    MPI_Win win;
    MPI_Group world, g;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, rank == 0 ? &one : &zero, &g);

    int *slots = calloc(1024, sizeof *slots);
    MPI_Win_create(slots, 1024 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_start(g, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 3, 1, MPI_INT, win); // related "rma-target-race"
        MPI_Win_complete(win);
    } else {
        MPI_Win_post(g, 0, win);
        seen = slots[3]; // want "rma-target-race"
        MPI_Win_wait(win);
        seen += slots[3];
    }
    MPI_Win_free(&win);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    free(slots);
    MPI_Finalize();
    return seen < 0; /* never: the sum only keeps the read */
}
