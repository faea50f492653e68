// ranks: 3
//
// bug_message_race_later.c: rank 1 owns the boundary of a 1-D domain and
// sends rank 0 its 6 boundary values; rank 2 owns the interior and sends
// 4 summary values after a longer computation. Rank 0 receives both with
// MPI_ANY_SOURCE, first into a buffer of 6 (meant for the boundary), then
// into one of 4 (meant for the interior). The boundary usually comes
// first; when the interior's 4 values do, the first receive takes them
// (a shorter message is legal) and the second gets the 6 boundary values
// into room for 4.
// Breaks MPI-4.1 §3.2.4 under another legal order: a message longer than
// the receive is an overflow error; with MPI_ANY_SOURCE the message
// matched depends on arrival order (§3.5).
// Expected: message-race at the first MPI_Recv (rank 0), an error naming
// the second MPI_Recv as the receive that fails.
// MPI_ERRORS_RETURN keeps the native run going when the bad order does
// happen.
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

enum { EDGE = 6, INNER = 4, DATA = 8 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
        double edge[EDGE], inner[INNER];
        MPI_Recv(edge, EDGE, MPI_DOUBLE, MPI_ANY_SOURCE, DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "message-race" "the later MPI_Recv that took it gets rank 1's instead: it receives 6 MPI_DOUBLE into room for 4: truncation"
        int rc = MPI_Recv(inner, INNER, MPI_DOUBLE, MPI_ANY_SOURCE, DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // related "message-race"
        if (rc != MPI_SUCCESS)
            fprintf(stderr, "bug_message_race_later: the interior block was truncated\n");
    } else if (rank == 1) {
        double edge[EDGE] = {1, 2, 3, 4, 5, 6};
        MPI_Send(edge, EDGE, MPI_DOUBLE, 0, DATA, MPI_COMM_WORLD);
    } else {
        struct timespec longer = {0, 150000000L};
        nanosleep(&longer, NULL);
        double inner[INNER] = {0.5, 0.25, 0.125, 0.0625};
        MPI_Send(inner, INNER, MPI_DOUBLE, 0, DATA, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
