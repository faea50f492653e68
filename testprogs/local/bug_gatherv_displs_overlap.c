// ranks: 4
//
// bug_gatherv_displs_overlap.c: a particle code gathers every rank's
// particles at rank 0 with MPI_Gatherv. Each rank owns rank + 2
// particles of three doubles; the root computes each displacement from
// the previous block's as if it pointed at that block's last particle,
// one short, so each block starts on the last particle of the one
// before it (the buffer holds all of them: nothing is written outside).
// Breaks MPI-4.1 §6.5: the specification of counts, types, and
// displacements must not cause any location on the root to be written
// more than once; such a call is erroneous.
// Expected: recv-blocks-overlap at the MPI_Gatherv on rank 0 (blocks 0
// and 1: block 0 holds particles 0 and 1, block 1 starts at particle 1).
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Datatype particle;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(3, MPI_DOUBLE, &particle);
    MPI_Type_commit(&particle);

    int mine = rank + 2;
    double *local = malloc(sizeof(double) * 3 * (size_t)mine);
    for (int i = 0; i < 3 * mine; i++)
        local[i] = rank;
    int *counts = NULL, *displs = NULL, total = 0;
    double *all = NULL;
    if (rank == 0) {
        counts = malloc(sizeof *counts * (size_t)size);
        displs = malloc(sizeof *displs * (size_t)size);
        for (int r = 0; r < size; r++) {
            counts[r] = r + 2;
            /* the end of the previous block taken as its last particle:
             * should be displs[r - 1] + counts[r - 1] */
            displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1] - 1;
            total += counts[r];
        }
        all = malloc(sizeof(double) * 3 * (size_t)total);
    }
    MPI_Gatherv(local, mine, particle, all, counts, displs, particle, 0, MPI_COMM_WORLD); // want "recv-blocks-overlap" "blocks 0 and 1 share bytes"
    MPI_Type_free(&particle);
    free(local);
    free(counts);
    free(displs);
    free(all);
    MPI_Finalize();
    return 0;
}
