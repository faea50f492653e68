// ranks: 2
//
// bug_rma_get_into_window.c: each rank's window (MPI_Win_allocate) holds
// its own row of 64 doubles followed by a ghost row; rank 0 fetches rank
// 1's row into its ghost row with MPI_Get under a shared lock and uses
// the ghost row before MPI_Win_unlock. The result buffer lies in rank 0's
// own window memory, which MPI allocated (a shared mapping with MPICH).
// MPI-4.1 §12.3.2 and §12.5.3: the result buffer of MPI_Get must not be
// accessed until the operation completes at the origin (MPI_Win_unlock,
// MPI_Win_flush or MPI_Win_flush_local for that target); until then it
// may hold old data, new data or a mix. mpidbg must report
// rma-origin-race at the read of the ghost row, with the MPI_Get as the
// related place.
#include <mpi.h>

enum { N = 64 };

int main(int argc, char **argv)
{
    int rank, i;
    double *base, edge = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * N * sizeof *base, sizeof *base, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (i = 0; i < N; i++) {
        base[i] = 100 * rank + i; /* the rank's own row */
        base[N + i] = -1;         /* the ghost row */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Get(&base[N], N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win); // related "rma-origin-race"
        edge = base[N + 3] - base[3]; // want "rma-origin-race" "loaded from the result buffer at offset 24, element \[3\]\(DOUBLE\) before the MPI_Get completed"
        MPI_Win_unlock(1, win);
        edge += base[N + 3];
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return edge < -1e300; /* never: the sum only keeps the read */
}
