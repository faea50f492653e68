// ranks: 2
//
// bug_type_mismatch_reverse_wait.c: the block transfer protocol of
// ok_recv_completion_order.c with a payload receive that names the
// wrong type. Rank 0 sends a header (8 ints) then a payload (500
// doubles) on one tag; rank 1 posts both receives, the payload one with
// MPI_FLOAT, and waits for the payload first.
// Breaks MPI-4.1 §3.3.1: the type signature of the message (500 x
// MPI_DOUBLE) does not match the receive's (MPI_FLOAT).
// Expected: type-mismatch at the payload's MPI_Irecv only: the header's
// receive, posted first, got the header (§3.5) and matches it, whatever
// the order of the waits.
#include <mpi.h>

enum { H = 8, P = 500, DATA = 7 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int h[H] = {0};
    double d[P] = {0};
    if (rank == 0) {
        MPI_Send(h, H, MPI_INT, 1, DATA, MPI_COMM_WORLD);
        MPI_Send(d, P, MPI_DOUBLE, 1, DATA, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Request rh, rd;
        MPI_Status s;
        MPI_Irecv(h, H, MPI_INT, 0, DATA, MPI_COMM_WORLD, &rh);
        MPI_Irecv(d, 2 * P, MPI_FLOAT, 0, DATA, MPI_COMM_WORLD, &rd); // want "type-mismatch"
        MPI_Wait(&rd, &s);
        MPI_Wait(&rh, &s);
    }
    MPI_Finalize();
    return 0;
}
