// ranks: 3
// native: hangs
//
// bug_coll_order_swap.c: rank 0 calls MPI_Barrier (to time the broadcast)
// and then MPI_Bcast; the other ranks call MPI_Bcast and then
// MPI_Barrier. The first collective of rank 0 meets the first collective
// of the others: a barrier against a broadcast.
// Breaks MPI-4.1 §6.1: all processes of a communicator must call the same
// collective operations in the same order.
// Expected: collective-mismatch at rank 0's MPI_Barrier, with the others'
// MPI_Bcast as a related line (one finding, both calls), and deadlock at rank 0's
// MPI_Barrier (the lowest rank of the deadlock; the job then ends).
//
// Natively MPICH hangs: the barrier waits for messages the other ranks
// never send, and they wait in the broadcast for the root.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, param = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        param = 17;
        MPI_Barrier(MPI_COMM_WORLD); // want "collective-mismatch" "deadlock"
        MPI_Bcast(&param, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(&param, 1, MPI_INT, 0, MPI_COMM_WORLD); // related "collective-mismatch"
        MPI_Barrier(MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
