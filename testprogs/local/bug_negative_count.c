// ranks: 2
//
// bug_negative_count.c: rank 0 sends the part of its array between two
// indices to rank 1; the indices are swapped, so the count hi - lo is -3.
// Breaks MPI-4.1 §3.2.2: count is a non-negative integer.
// Expected: negative-count at the MPI_Send (rank 0).
//
// MPICH rejects the call with MPI_ERR_COUNT and would abort the job with its
// default error handler: MPI_ERRORS_RETURN on MPI_COMM_WORLD lets the
// program (and mpidbg, which reports before forwarding) carry on. Rank 1
// posts no receive, so nothing waits for the message that is never sent.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int lo = 5, hi = 2; // bug: should be lo = 2, hi = 5

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        int n = hi - lo;
        MPI_Send(data + lo, n, MPI_INT, 1, 0, MPI_COMM_WORLD); // want "negative-count" "MPI_Send: count -3 must be non-negative"
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
