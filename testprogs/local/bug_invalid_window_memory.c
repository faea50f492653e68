// ranks: 2
//
// bug_invalid_window_memory.c: each rank exposes its result block in a
// window of its own (MPI_COMM_SELF), opened and closed by fences; rank 1
// has no results this time and passes NULL, but with the block's size
// instead of 0. Erroneous by MPI-4.1 §12.2.1: the window of a process is
// the size bytes starting at base, so rank 1's would be the bytes at
// address 0. MPICH refuses the call (MPI_ERR_ARG, "Null pointer in
// parameter base"); Open MPI 4.1 takes it on MPI_COMM_SELF but dies of it
// inside MPI_Win_create on a window its UCX component serves (one over
// MPI_COMM_WORLD), so the shim refuses it there as MPICH does.
// MPI_ERRORS_RETURN on MPI_COMM_SELF lets the program go on without the
// window.
// Expected: invalid-window-memory at the MPI_Win_create (rank 1).
#include <mpi.h>
#include <stdlib.h>

enum { N = 64 };

int main(int argc, char **argv)
{
    int rank;
    double *block = NULL;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (rank == 0)
        block = calloc(N, sizeof *block);

    // bug: the size should be 0 where there is no block
    int rc = MPI_Win_create(block, N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_SELF, &win); // want "invalid-window-memory" "base is NULL but size is 512 bytes"
    if (rc == MPI_SUCCESS) {
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        MPI_Win_free(&win);
    }
    free(block);
    MPI_Finalize();
    return 0;
}
