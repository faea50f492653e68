// ranks: 3
// native: hangs
//
// bug_deadlock_recv_recv.c: ranks 0 and 1 swap their boundary values, but
// both receive before they send (head-to-head blocking receives); rank 2
// has no boundary and waits in the final MPI_Barrier.
// Breaks MPI-4.1 §3.5 (progress): a blocking receive completes only once
// a matching send is started; each rank's send comes after a receive only
// the other could satisfy, so neither can proceed.
// Expected: deadlock at rank 0's MPI_Recv (the lowest rank of the cycle
// 0 -> 1 -> 0; rank 2 waits for both in the barrier).
//
// Natively MPICH hangs the same way.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double mine, theirs = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    mine = 1.0 + rank;
    if (rank < 2) {
        int other = 1 - rank;
        MPI_Recv(&theirs, 1, MPI_DOUBLE, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
        MPI_Send(&mine, 1, MPI_DOUBLE, other, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Finalize();
    return theirs < 0;
}
