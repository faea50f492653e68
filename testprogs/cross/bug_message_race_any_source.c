// ranks: 3
// flags: --checks=+message-race-info
//
// bug_message_race_any_source.c: the classic race with three ranks. Ranks
// 1 and 2 each send one value to rank 0, concurrently; rank 0 receives
// twice with MPI_ANY_SOURCE and treats the first message as the "left"
// value and the second as the "right" one, so its result depends on which
// message arrives first.
// Breaks MPI-4.1 §3.5: with MPI_ANY_SOURCE the message matched depends on
// arrival order, which MPI does not fix; nothing orders rank 1's send and
// rank 2's send.
// Expected: message-race-info at the MPI_Recv (rank 0), naming both candidate
// senders.
// Every candidate message fits the receive, so no other order makes MPI
// fail: the bug is in what the program does with the order, which mpidbg
// reports only when asked (message-race-info, an info finding, with
// --checks +message-race-info).
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i;
    double v[2] = {0, 0}, x;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        for (i = 0; i < 2; i++)
            MPI_Recv(&v[i], 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "message-race-info"
        x = v[0] - v[1]; // bug: assumes rank 1's value comes first
    } else {
        x = 10.0 * rank;
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return x > 1e9;
}
