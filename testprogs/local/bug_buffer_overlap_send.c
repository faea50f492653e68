// ranks: 2
//
// bug_buffer_overlap_send.c: each rank posts a receive into its buffer and
// then sends from the same buffer (it meant to send from a separate
// "outgoing" copy): the send reads bytes the pending receive writes.
// Breaks MPI-4.1 §3.7.2: a receive buffer must not be accessed until the
// receive completes.
// Expected: buffer-overlap at the MPI_Send (both ranks).
//
// The messages are small, so the sends complete natively; what each rank
// sends depends on timing, which this program does not look at.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i, buf[4];
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (i = 0; i < 4; i++)
        buf[i] = rank * 4 + i;
    MPI_Irecv(buf, 4, MPI_INT, rank ^ 1, 0, MPI_COMM_WORLD, &r);
    MPI_Send(buf, 4, MPI_INT, rank ^ 1, 0, MPI_COMM_WORLD); // want "buffer-overlap"
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    MPI_Finalize();
    return 0;
}
