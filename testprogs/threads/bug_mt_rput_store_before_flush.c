// ranks: 2
//
// bug_mt_rput_store_before_flush.c: a single-threaded program under
// MPI_THREAD_MULTIPLE (as mpi4py asks for by default) refills the origin
// buffer of an MPI_Rput before the flush that completes it.
// Breaks MPI-4.1 §12.3 and §12.5.4: the origin buffer of a put must not
// be updated until the operation completes at the origin (a flush, an
// unlock, or the request's completion).
// Expected: rma-origin-race at the store, with the MPI_Rput as the
// related place; nothing at the store after the flush.
#include <mpi.h>
#include <stdlib.h>

enum { N = 1024 };

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *mem;
    MPI_Win win;
    MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    double *out = malloc(N * sizeof *out);
    for (int i = 0; i < N; i++)
        out[i] = i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request r;
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Rput(out, N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win, &r); // related "rma-origin-race"
        out[7] = -1; // want "rma-origin-race" "before the MPI_Rput completed"
        MPI_Win_flush(1, win);
        out[8] = -1;
        MPI_Win_unlock(1, win);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(out);
    MPI_Finalize();
    return 0;
}
