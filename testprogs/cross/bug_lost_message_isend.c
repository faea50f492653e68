// ranks: 4
//
// bug_lost_message_isend.c: in a pipeline 0 -> 1 -> 2 -> 3 each rank
// forwards a token with MPI_Isend + MPI_Wait after receiving it; the last
// rank also sends a "done" note back to rank 2 with MPI_Isend, which it
// completes with MPI_Wait (the note is small and sent eagerly), but rank 2
// never posts a receive for it.
// Breaks MPI-4.1 §11.2.2 (and §3.5): before MPI_FINALIZE a process must
// complete all its communication; a message that no receive matches is
// never delivered.
// Expected: lost-message at rank 3's MPI_Isend of the note (rank 2, the
// destination, reports it at MPI_Finalize).
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, token = 0, done = 1;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank > 0)
        MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token += rank;
    if (rank < size - 1) {
        MPI_Isend(&token, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Isend(&done, 1, MPI_INT, rank - 1, 9, MPI_COMM_WORLD, &r); // want "lost-message"
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Finalize();
    return 0;
}
