// ranks: 3
//
// ok_race_free_posted.c: a wildcard receive that cannot race because a
// receive posted before it takes the other message. Rank 0 posts
// MPI_Irecv from rank 2 for its checkpoint summary, then receives the
// first "ready" message with MPI_ANY_SOURCE, then waits for the summary.
// Ranks 1 and 2 each send one message with the same tag, rank 1 after a
// delay, so rank 2's message usually arrives while both receives are
// posted: MPI gives it to the receive posted first, the one from rank 2
// (MPI-4.1 §3.5: if a message matches several posted receives, the
// earliest is chosen), so the wildcard receive always gets rank 1's.
// Correct: must produce no findings (with --checks +message-race-info
// too).
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

enum { HELLO = 4 };

int main(int argc, char **argv)
{
    int rank, who = -1, summary = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Request r;
        MPI_Status st;
        MPI_Irecv(&summary, 1, MPI_INT, 2, HELLO, MPI_COMM_WORLD, &r);
        MPI_Recv(&who, 1, MPI_INT, MPI_ANY_SOURCE, HELLO, MPI_COMM_WORLD, &st);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (st.MPI_SOURCE == 1 && who == 1 && summary == 42)
            printf("ok_race_free_posted: OK\n");
        else
            printf("ok_race_free_posted: ready %d from %d, summary %d\n", who, st.MPI_SOURCE, summary);
    } else if (rank == 1) {
        struct timespec later = {0, 100000000L};
        nanosleep(&later, NULL);
        MPI_Send(&rank, 1, MPI_INT, 0, HELLO, MPI_COMM_WORLD);
    } else {
        int blocks = 42;
        MPI_Send(&blocks, 1, MPI_INT, 0, HELLO, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
