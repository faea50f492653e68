// ranks: 4
//
// bug_topology_mismatch.c: the ranks make a periodic 1-D ring with
// MPI_Cart_create, then ask for their neighbours with MPI_Cart_shift on
// MPI_COMM_WORLD instead of the ring's communicator. Erroneous by MPI-4.1
// §8.5.5: the Cartesian inquiry functions need a communicator with a
// Cartesian topology; both MPIs fail the call with MPI_ERR_TOPOLOGY. With
// MPI_ERRORS_RETURN the program notices and asks the ring.
// Expected: topology-mismatch at the first MPI_Cart_shift (every rank).
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int size, rank, left, right, dims[1], periods[1] = {1};
    MPI_Comm ring;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_rank(ring, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &left, &right); // want "topology-mismatch" "comm has no topology, and MPI_Cart_shift needs a Cartesian topology"
    if (rc != MPI_SUCCESS)
        MPI_Cart_shift(ring, 0, 1, &left, &right);
    int got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, ring, MPI_STATUS_IGNORE);
    if (got != (rank + size - 1) % size)
        printf("rank %d: got %d from the left\n", rank, got);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
