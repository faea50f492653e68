// ranks: 3
//
// bug_type_mismatch_wildcard.c: rank 0 waits for a status report from
// whichever rank sends one, with MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) into
// an int; only rank 2 sends one, and it sends its value as MPI_FLOAT. Rank
// 1 sends nothing, so the wildcard has a single candidate (no race).
// Breaks MPI-4.1 §3.3.1: the send's type signature (FLOAT) must match the
// receive's (INT), whatever source and tag the receive named.
// Expected: type-mismatch at the MPI_Recv (rank 0).
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, code = 0;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Recv(&code, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st); // want "type-mismatch"
    } else if (rank == 2) {
        float load = 0.75f;
        MPI_Send(&load, 1, MPI_FLOAT, 0, 42, MPI_COMM_WORLD); // bug: rank 0 takes an int
    }

    MPI_Finalize();
    return 0;
}
