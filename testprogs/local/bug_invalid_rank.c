// ranks: 3
//
// bug_invalid_rank.c: a non-periodic shift along a line of ranks; each rank
// sends its value to the right and receives from the left. The left
// neighbour is MPI_PROC_NULL on rank 0 as it should be, but the right
// neighbour is rank+1 without a boundary test, so the last rank sends to
// rank 3 of a 3-rank communicator.
// Breaks MPI-4.1 §3.2.3: dest is a rank of comm or MPI_PROC_NULL.
// Expected: invalid-rank at the MPI_Sendrecv (rank 2 only).
//
// MPICH rejects the last rank's call with MPI_ERR_RANK (the default handler
// would abort): MPI_ERRORS_RETURN lets it continue, and rank 2 then receives
// rank 1's message with a plain MPI_Recv so that it does not stay unmatched.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, mine, got = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank + 1; // bug: should be MPI_PROC_NULL on the last rank
    mine = 10 * rank;

    int rc = MPI_Sendrecv(&mine, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "invalid-rank"
    if (rc != MPI_SUCCESS) // still take the left neighbour's message: UCX warns about unmatched ones
        MPI_Recv(&got, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
