// ranks: 3
//
// bug_invalid_handle.c: ranks 0 and 1 form a sub-communicator with
// MPI_Comm_split; rank 2 passes MPI_UNDEFINED as its colour and so gets
// MPI_COMM_NULL, but every rank then reduces over "its" sub-communicator.
// Breaks MPI-4.1 §2.5.1: MPI_COMM_NULL is not a communicator.
// Expected: invalid-handle at the MPI_Allreduce (rank 2 only).
//
// MPICH rejects rank 2's call with MPI_ERR_COMM (the default handler would
// abort): MPI_ERRORS_RETURN on MPI_COMM_WORLD lets it continue. Ranks 0 and
// 1 complete their reduction among themselves.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, one = 1, members = 0;
    MPI_Comm sub;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &sub);
    // bug: no test for sub == MPI_COMM_NULL
    MPI_Allreduce(&one, &members, 1, MPI_INT, MPI_SUM, sub); // want "invalid-handle"

    if (sub != MPI_COMM_NULL)
        MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
