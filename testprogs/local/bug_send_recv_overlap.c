// ranks: 2
//
// bug_send_recv_overlap.c: a shift of an array between two ranks with
// MPI_Sendrecv, sending elements 0..3 and receiving into elements 2..5 of
// the same array (MPI_Sendrecv_replace, or a separate receive array, was
// meant).
// Breaks MPI-4.1 §3.10: the send and receive buffers of MPI_SENDRECV must
// be disjoint.
// Expected: send-recv-overlap at the MPI_Sendrecv (both ranks).
//
// The messages are small, so MPICH copies the send data before the receive
// lands and the program finishes natively; it does not look at the result.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i, v[6];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (i = 0; i < 6; i++)
        v[i] = rank * 6 + i;
    MPI_Sendrecv(v, 4, MPI_INT, rank ^ 1, 0, v + 2, 4, MPI_INT, rank ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "send-recv-overlap"

    MPI_Finalize();
    return 0;
}
