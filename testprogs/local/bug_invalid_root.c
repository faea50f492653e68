// ranks: 3
//
// bug_invalid_root.c: the last rank reads a parameter and broadcasts it;
// the root is computed as the communicator size instead of size-1.
// Breaks MPI-4.1 §6.1 (MPI_BCAST): root is a rank of comm.
// Expected: invalid-root at the MPI_Bcast (every rank).
//
// MPICH rejects the call on every rank with MPI_ERR_ROOT (the default
// handler would abort): MPI_ERRORS_RETURN lets the job finish.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, param = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int root = size; // bug: the last rank is size - 1
    if (rank == size - 1)
        param = 42;
    MPI_Bcast(&param, 1, MPI_INT, root, MPI_COMM_WORLD); // want "invalid-root"

    MPI_Finalize();
    return 0;
}
