// ranks: 3
//
// bug_rma_rput_flushed_other.c: rank 0 pushes one result to rank 1 with
// MPI_Rput and completes the epoch's operations to rank 2 with
// MPI_Win_flush, then rewrites the put's origin buffer, taking that
// flush for the one that completes the put; the request is waited for
// only later.
// Breaks MPI-4.1 §12.3.5 and §12.5.4: MPI_Win_flush(2) completes the
// operations to rank 2 only; the MPI_Rput to rank 1 is still outstanding
// until its request completes or a flush or unlock of rank 1, and its
// origin buffer must not be updated until then.
// Expected: rma-origin-race at the store (rank 0), with the MPI_Rput as
// the related place.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Win win;
    double *mem;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(1024 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    double *out = malloc(1024 * sizeof *out);
    for (int i = 0; i < 1024; i++)
        out[i] = i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        MPI_Rput(out, 1024, MPI_DOUBLE, 1, 0, 1024, MPI_DOUBLE, win, &r); // related "rma-origin-race"
        MPI_Put(out, 1, MPI_DOUBLE, 2, 0, 1, MPI_DOUBLE, win);
        MPI_Win_flush(2, win);
        out[0] = -1; // want "rma-origin-race" "before the MPI_Rput completed"
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Win_unlock_all(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(out);
    MPI_Finalize();
    return 0;
}
