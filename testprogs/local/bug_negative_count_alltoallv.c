// ranks: 4
//
// bug_negative_count_alltoallv.c: every rank deals out 5 integers to the 4
// ranks in blocks of ceil(5/4) = 2; the last block's count is computed as
// 5 - 3*2 = -1 instead of being clamped at 0 (the same on every rank, so
// the send and receive counts both hold -1).
// Breaks MPI-4.1 §3.2.2 / §6.8: the counts of a v-collective are
// non-negative.
// Expected: negative-count at the MPI_Alltoallv (all ranks).
//
// MPICH rejects the call on every rank with MPI_ERR_COUNT before any data
// moves; MPI_ERRORS_RETURN keeps the job alive (the default handler
// aborts).
#include <mpi.h>

#define TOTAL 5

int main(int argc, char **argv)
{
    int rank, size, i;
    int counts[4], displs[4], out[TOTAL], in[4 * TOTAL];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4)
        MPI_Abort(MPI_COMM_WORLD, 2);

    int chunk = (TOTAL + size - 1) / size;
    for (i = 0; i < size; i++) {
        counts[i] = chunk;
        displs[i] = i * chunk;
    }
    counts[size - 1] = TOTAL - (size - 1) * chunk; // bug: -1, should be max(0, ...)
    for (i = 0; i < TOTAL; i++)
        out[i] = rank * 100 + i;

    MPI_Alltoallv(out, counts, displs, MPI_INT, in, counts, displs, MPI_INT, MPI_COMM_WORLD); // want "negative-count"

    MPI_Finalize();
    return 0;
}
