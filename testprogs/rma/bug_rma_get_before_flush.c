// ranks: 2
//
// bug_rma_get_before_flush.c: rank 0 locks rank 1's window, gets a row of
// 512 doubles into a buffer of its own (a page, aligned) and reads one
// before MPI_Win_flush. MPI-4.1 §12.3.2 and §12.5.4: the result buffer of
// MPI_Get must not be accessed until the operation completes at the
// origin (MPI_Win_flush, MPI_Win_flush_local or MPI_Win_unlock for that
// target); until then it may hold old data, new data or a mix.
// Expected: rma-origin-race at the read, with the MPI_Get as the related
// place. The buffer, static here, shares its page with nothing, so the
// race tracker watches it under every MPI library.
#include <mpi.h>

static double row[512] __attribute__((aligned(4096)));

int main(int argc, char **argv)
{
    int rank;
    double mem[512], seen = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 512; i++)
        mem[i] = rank * 1000 + i;
    MPI_Win_create(mem, sizeof mem, sizeof mem[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Get(row, 512, MPI_DOUBLE, 1, 0, 512, MPI_DOUBLE, win); // related "rma-origin-race"
        seen = row[7];                                            // want "rma-origin-race"
        MPI_Win_flush(1, win);
        seen += row[7];
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen < 0; /* never: the sum only keeps the reads */
}
