// ranks: 2
//
// bug_rma_put_origin_reuse.c: rank 0 puts 8 ints from a malloc'd buffer
// into rank 1's window inside a fence epoch, then writes the next values
// into the same buffer before the closing MPI_Win_fence. MPI-4.1 §12.3.1
// and §12.5: the origin buffer of MPI_Put must not be updated until the
// operation completes at the origin (here: the closing fence); MPI may
// read it at any time until then, so rank 1 may receive the old values,
// the new ones or a mix. mpidbg must report rma-origin-race at the store
// into the buffer, with the MPI_Put as the related place.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, i;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int *slots = calloc(8, sizeof *slots);
    int *src = malloc(8 * sizeof *src);
    for (i = 0; i < 8; i++)
        src[i] = i;
    MPI_Win_create(slots, 8 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(src, 8, MPI_INT, 1, 0, 8, MPI_INT, win); // related "rma-origin-race"
        src[3] = 100;                                    // want "rma-origin-race" "stored to the origin buffer at offset 12, element \[3\]\(INT\) before the MPI_Put completed"
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(src);
    free(slots);
    MPI_Finalize();
    return 0;
}
