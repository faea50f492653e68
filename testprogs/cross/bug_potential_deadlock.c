// ranks: 4
// flags: --buffering=zero
//
// bug_potential_deadlock.c: ranks exchange a small value in pairs (0,1)
// and (2,3), both sides calling MPI_Send before MPI_Recv (head-to-head
// sends). It works natively only because MPICH sends small messages
// eagerly; with larger messages, or an MPI with less buffer space, every
// send waits for a receive that is never posted.
// Breaks MPI-4.1 §3.4 and §3.5: a standard-mode send may block until the
// matching receive is posted; a program that completes only if messages
// are buffered is unsafe.
// Expected, under --buffering=zero (standard sends made synchronous):
// potential-deadlock at rank 0's MPI_Send (the lowest rank of the
// deadlock); the job then ends.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out, in = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int partner = rank ^ 1;
    out = 10 * rank;
    MPI_Send(&out, 1, MPI_INT, partner, 0, MPI_COMM_WORLD); // want "potential-deadlock"
    MPI_Recv(&in, 1, MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Finalize();
    return in != 10 * partner;
}
