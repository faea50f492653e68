// ranks: 5
// flags: --checks=+message-race-info
//
// bug_message_race_irecv.c: rank 0 posts one MPI_Irecv(MPI_ANY_SOURCE,
// MPI_ANY_TAG) per worker into slot i and waits for all of them; it then
// reads slot i as worker i's result. Workers 1-4 send concurrently with
// their own tags, so which slot takes whose message depends on timing.
// Breaks MPI-4.1 §3.5: with MPI_ANY_SOURCE and MPI_ANY_TAG the message
// matched depends on arrival order; the tags do not tell the messages
// apart because the receive accepts any tag.
// Expected: message-race-info at the MPI_Irecv (rank 0), the wildcard receive,
// not at the MPI_Waitall.
// Every candidate message fits the receive, so no other order makes MPI
// fail: the bug is in what the program does with the order, which mpidbg
// reports only when asked (message-race-info, an info finding, with
// --checks +message-race-info).
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, i, res[8] = {0}, sum = 0;
    MPI_Request r[8];
    MPI_Status sts[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        for (i = 1; i < size; i++)
            MPI_Irecv(&res[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[i - 1]); // want "message-race-info"
        MPI_Waitall(size - 1, r, sts);
        for (i = 1; i < size; i++)
            sum += i * res[i]; // bug: slot i is not worker i's result
    } else {
        int v = rank * rank;
        MPI_Send(&v, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return sum < 0;
}
