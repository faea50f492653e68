// ranks: 2
// native: hangs
//
// bug_deadlock_waitall_many.c: two ranks swap the 64 boundary columns of
// their blocks, one message per column. Each posts its 64 receives and
// its 64 sends, then waits for them in one MPI_Waitall; but each sends
// its columns with the tag of the column as the partner numbers it
// (63 - j), and receives them on its own numbering, shifted by one
// (a stale "+ 1" from a ghost-column layout): column 63's receive waits
// for tag 64, which nobody sends.
// Breaks MPI-4.1 §3.5 (progress) and §3.7.5: MPI_Waitall returns only when
// every request completes; each rank's receive for tag 64 never matches,
// so neither rank returns, and each waits for the other.
// Expected: deadlock at the MPI_Waitall, on both ranks, though each waits
// for 128 requests, more than a rank lists: the sends left out of the
// list match receives, the receive for tag 64 matches nothing.
//
// Natively both ranks hang in the MPI_Waitall.
#include <mpi.h>

enum { NCOL = 64, NROW = 32 };

int main(int argc, char **argv)
{
    int rank;
    static double left[NCOL][NROW], ghost[NCOL][NROW];
    MPI_Request req[2 * NCOL];
    MPI_Status st[2 * NCOL];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    for (int j = 0; j < NCOL; j++)
        for (int i = 0; i < NROW; i++)
            left[j][i] = rank + 0.01 * j;
    for (int j = 0; j < NCOL; j++)
        MPI_Irecv(ghost[j], NROW, MPI_DOUBLE, peer, j + 1, MPI_COMM_WORLD, &req[j]); // bug: tags 1..64, sent 0..63
    for (int j = 0; j < NCOL; j++)
        MPI_Isend(left[j], NROW, MPI_DOUBLE, peer, NCOL - 1 - j, MPI_COMM_WORLD, &req[NCOL + j]);
    MPI_Waitall(2 * NCOL, req, st); // want "deadlock"
    MPI_Finalize();
    return 0;
}
