// ranks: 4
// native: hangs
//
// bug_deadlock_wrong_source.c: a periodic 1-D halo exchange: every rank
// sends its right edge to its right neighbour, then receives its left
// halo, but computes the source as rank+1 (its right neighbour) instead
// of rank-1. The sends are small and complete at once; every receive waits
// for a message its source sent to someone else.
// Breaks MPI-4.1 §3.5 (progress): the receive's source never sends it a
// matching message, so it never completes.
// Expected: deadlock at rank 0's MPI_Recv (the cycle 0 -> 1 -> 2 -> 3 ->
// 0; each rank waits for its right neighbour).
//
// Natively MPICH hangs the same way.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    double edge, halo = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int right = (rank + 1) % size;
    int left = (rank + 1) % size; // bug: should be (rank - 1 + size) % size
    edge = rank;
    MPI_Send(&edge, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD);
    MPI_Recv(&halo, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"

    MPI_Finalize();
    return halo < 0;
}
