// ranks: 5
// native: hangs
//
// bug_deadlock_ssend_ring.c: a ring shift written as MPI_Ssend to the
// right neighbour, then MPI_Recv from the left one, on 5 ranks. A
// synchronous send completes only when its receive has started, and every
// rank's receive comes after its own send.
// Breaks MPI-4.1 §3.4 (MPI_SSEND completes only once the matching receive
// has started) and §3.5 (progress): a cycle of synchronous sends.
// Expected: deadlock at rank 0's MPI_Ssend (the cycle 0 -> 1 -> 2 -> 3 ->
// 4 -> 0).
//
// Natively MPICH hangs the same way.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, out, in = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    out = rank;
    MPI_Ssend(&out, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD); // want "deadlock"
    MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Finalize();
    return in < 0;
}
