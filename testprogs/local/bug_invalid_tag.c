// ranks: 2
//
// bug_invalid_tag.c: rank 0 sends with MPI_ANY_TAG, as if the wildcard
// worked on the sending side.
// Breaks MPI-4.1 §3.2.3/§3.2.4: a send's tag is in 0..MPI_TAG_UB;
// MPI_ANY_TAG is only for receives.
// Expected: invalid-tag at the MPI_Send (rank 0).
//
// MPICH rejects the send with MPI_ERR_TAG (the default handler would
// abort): MPI_ERRORS_RETURN keeps the job going. Rank 1 posts no receive.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 7;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0)
        MPI_Send(&value, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD); // want "invalid-tag"

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
