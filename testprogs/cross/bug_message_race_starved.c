// ranks: 3
//
// bug_message_race_starved.c: rank 0 waits for the first of two helpers
// to say it is ready (MPI_ANY_SOURCE), then for rank 2's checkpoint
// summary (source 2, same tag). Rank 1 is ready at once; rank 2 sends its
// summary after writing its checkpoint. When rank 1 is the first, all is
// well; when rank 2's summary comes first, the wildcard receive takes it
// and the receive from rank 2 waits for a second message rank 2 never
// sends, while rank 1's message is never received.
// Breaks MPI-4.1 §3.5 under another legal order: with MPI_ANY_SOURCE the
// message matched depends on arrival order; that order leaves a receive
// with no message (a deadlock).
// Expected: message-race at the wildcard MPI_Recv (rank 0), an error
// reported at MPI_Finalize, with the receive from rank 2 as the related
// place.
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
        MPI_Recv(&who, 1, MPI_INT, MPI_ANY_SOURCE, HELLO, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "message-race" "waits for a second message of rank 2"
        MPI_Recv(&summary, 1, MPI_INT, 2, HELLO, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // related "message-race"
        if (who < 0 || summary < 0)
            fprintf(stderr, "bug_message_race_starved: ready %d, summary %d\n", who, summary);
    } else if (rank == 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, HELLO, MPI_COMM_WORLD);
    } else {
        struct timespec checkpoint = {0, 150000000L};
        nanosleep(&checkpoint, NULL);
        int blocks = 42;
        MPI_Send(&blocks, 1, MPI_INT, 0, HELLO, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
