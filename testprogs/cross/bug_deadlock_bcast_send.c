// ranks: 3
//
// bug_deadlock_bcast_send.c: rank 0 broadcasts a parameter and then
// receives a result from rank 1; rank 1 sends its result synchronously
// (MPI_Ssend) before it joins the broadcast; rank 2 only broadcasts.
// Natively this completes: the root of a small MPI_Bcast sends and returns
// without waiting for the others, so rank 0 reaches its MPI_Recv.
// Breaks MPI-4.1 §6.14: a collective may or may not synchronize, and a
// correct program must not depend on either; were the broadcast
// synchronizing, rank 0 would wait in it for rank 1, and rank 1 in its
// MPI_Ssend for rank 0.
// Expected: mpidbg makes collectives synchronizing, so the job deadlocks:
// deadlock at rank 0's MPI_Bcast (the lowest rank of the cycle 0 -> 1 ->
// 0); the job then ends.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, param = 0, result = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        param = 3;
        MPI_Bcast(&param, 1, MPI_INT, 0, MPI_COMM_WORLD); // want "deadlock"
        MPI_Recv(&result, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        result = 42;
        MPI_Ssend(&result, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Bcast(&param, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(&param, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
