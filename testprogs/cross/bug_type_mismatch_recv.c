// ranks: 3
//
// bug_type_mismatch_recv.c: rank 0 collects per-rank step counts as long
// integers with MPI_Recv from each other rank; rank 2 sends them as
// MPI_LONG, but rank 1 still sends its timings array as MPI_DOUBLE (same
// size, so MPI copies the bytes and rank 0 reads doubles as longs).
// Breaks MPI-4.1 §3.3.1: the type signature of the send (DOUBLE DOUBLE)
// must match that of the receive (LONG LONG).
// Expected: type-mismatch at the MPI_Recv (rank 0), naming rank 1's
// MPI_Send. Rank 2's message matches: no finding for it.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, src;
    long steps[2] = {0, 0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        for (src = 1; src < size; src++)
            MPI_Recv(steps, 2, MPI_LONG, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch" "sends MPI_DOUBLE\[0\] where rank 0 receives MPI_LONG\[0\]"
    } else if (rank == 1) {
        double timings[2] = {1.5, 2.5};
        MPI_Send(timings, 2, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD); // bug: rank 0 expects MPI_LONG
    } else {
        steps[0] = 10 * rank;
        steps[1] = 10 * rank + 1;
        MPI_Send(steps, 2, MPI_LONG, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
