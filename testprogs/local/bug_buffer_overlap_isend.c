// ranks: 2
//
// bug_buffer_overlap_isend.c: each rank starts a send from its buffer and
// then posts a receive into the same buffer before the send is completed
// (it meant to receive into a separate "incoming" array). The send is
// small, so MPICH completes it at once and returns its shared builtin
// request handle; the operation is still pending for the program until
// MPI_Waitall completes it.
// Breaks MPI-4.1 §3.7.2 (a send buffer must not be written, and a receive
// buffer not accessed, until the operation completes) and §3.7.3 (an
// operation is pending until a completion call completes it).
// Expected: buffer-overlap at the MPI_Irecv (both ranks, one finding).
//
// What each rank receives depends on timing, which this program does not
// look at.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i, buf[4];
    MPI_Request r[2];
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (i = 0; i < 4; i++)
        buf[i] = rank * 4 + i;
    MPI_Isend(buf, 4, MPI_INT, rank ^ 1, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(buf, 4, MPI_INT, rank ^ 1, 0, MPI_COMM_WORLD, &r[1]); // want "buffer-overlap"
    MPI_Waitall(2, r, st);

    MPI_Finalize();
    return 0;
}
