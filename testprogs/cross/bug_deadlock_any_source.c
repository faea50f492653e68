// ranks: 4
// native: hangs
//
// bug_deadlock_any_source.c: rank 0 waits for the first worker to be
// ready with MPI_Recv(MPI_ANY_SOURCE); every worker waits for its
// configuration from rank 0 before it says it is ready, and rank 0 sends
// the configurations only after the first ready message.
// Breaks MPI-4.1 §3.5 (progress): a receive from MPI_ANY_SOURCE waits for
// any one sender (an OR wait), but every possible sender waits for rank 0
// (a knot).
// Expected: deadlock at rank 0's MPI_Recv.
//
// Natively MPICH hangs the same way.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, i, ready = 0, cfg = 7;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        MPI_Recv(&ready, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st); // want "deadlock"
        for (i = 1; i < size; i++)
            MPI_Send(&cfg, 1, MPI_INT, i, 1, MPI_COMM_WORLD);
        for (i = 2; i < size; i++)
            MPI_Recv(&ready, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
    } else {
        MPI_Recv(&cfg, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // bug: say ready first
        ready = rank;
        MPI_Send(&ready, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
