// ranks: 2
//
// bug_invalid_tag_negative.c: tags are computed as a base minus an offset
// that is larger than the base, giving -5 in rank 1's receive (a negative
// tag other than MPI_ANY_TAG).
// Breaks MPI-4.1 §3.2.3/§3.2.4: tags range from 0 to MPI_TAG_UB; the only
// negative tag a receive accepts is MPI_ANY_TAG.
// Expected: invalid-tag at the MPI_Recv (rank 1).
//
// MPICH rejects the receive with MPI_ERR_TAG (the default handler would
// abort): MPI_ERRORS_RETURN keeps the job going, and rank 1 then receives
// rank 0's message (tag 0) so that it does not stay unmatched.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 7, got = 0;
    int base = 5, offset = 10; // bug: the offset should be below the base

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0)
        MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (MPI_Recv(&got, 1, MPI_INT, 0, base - offset, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) // want "invalid-tag"
        MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // drain: UCX warns about unmatched messages

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
