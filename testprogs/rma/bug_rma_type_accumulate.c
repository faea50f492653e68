// ranks: 3
//
// bug_rma_type_accumulate.c: ranks 1 and 2 add their histograms of 4
// bins into rank 0's with MPI_Accumulate(MPI_SUM) in a passive-target
// epoch. The histogram is int64_t in the code; the origin names it
// MPI_LONG (what the build system's configure chose for 64-bit ints) and
// the target MPI_INT64_T. Then each reads the global total of bin 0 back
// with MPI_Get_accumulate(MPI_NO_OP), whose result datatype is MPI_LONG
// and target datatype MPI_INT64_T too.
// Breaks MPI-4.1 §12.3.4: both datatype arguments of an accumulate must
// be built from the same predefined datatype, and the result buffer of
// MPI_Get_accumulate receives the target's data as a get would (§12.3.2,
// §3.3.1): MPI_LONG and MPI_INT64_T are different predefined types,
// though both are 8 bytes here.
// Expected: rma-type-mismatch at the MPI_Accumulate (target_datatype) and
// at the MPI_Get_accumulate (result_datatype), on ranks 1 and 2. Open MPI
// refuses the accumulate (MPI_ERR_ARG), MPICH performs it; the window's
// MPI_ERRORS_RETURN lets the run go on either way.
#include <mpi.h>
#include <stdint.h>

enum { BINS = 4 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int64_t *hist;
    MPI_Win win;
    MPI_Win_allocate(BINS * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &hist, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN); /* Open MPI refuses the accumulate: the run goes on */
    for (int i = 0; i < BINS; i++)
        hist[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t mine[BINS], total = 0;
    for (int i = 0; i < BINS; i++)
        mine[i] = rank * (i + 1);
    if (rank > 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Accumulate(mine, BINS, MPI_LONG, 0, 0, BINS, MPI_INT64_T, MPI_SUM, win); // want "rma-type-mismatch" "MPI_LONG.* where the target takes MPI_INT64_T"
        MPI_Win_flush(0, win);
        MPI_Get_accumulate(mine, 0, MPI_LONG, &total, 1, MPI_LONG, 0, 0, 1, MPI_INT64_T, MPI_NO_OP, win); // want "rma-type-mismatch" "where the result takes MPI_LONG"
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return total < 0;
}
