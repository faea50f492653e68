// ranks: 2
//
// bug_persistent_recv_read_early.c: a boundary exchange with a persistent
// receive. Each step rank 1 sends its boundary row, then a short "row
// sent" note on another tag; rank 0 waits for the note, starts its
// persistent receive for the row and, before MPI_Wait, reads the row's
// first value for its log, as if a message known to be there were
// received already. Breaks MPI-4.1 §3.9: a started persistent receive
// is an MPI_Irecv (§3.7.2), and its buffer is MPI's until the
// completion call, whenever the data actually arrives.
// Expected: buffer-access-latent at the read (rank 0), once for the
// three steps, the MPI_Start as the related call. The row is there when
// MPI_Start runs (the note came after it from the same sender), and
// both MPIs copy a message this small into the buffer inside MPI_Start;
// the tracker watches the buffer from before that call, so it sees the
// copy, and the read is right by chance.
//
// The row gets a page of its own (posix_memalign): beside the MPI
// library's own heap objects the tracker would leave the page open for
// the library (docs/races.md).
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROW 16
#define STEPS 3

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    void *page;
    if (posix_memalign(&page, 4096, 4096) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double *row = page;

    if (rank == 0) {
        MPI_Request r;
        MPI_Recv_init(row, ROW, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &r);
        int bad = 0;
        for (int step = 0; step < STEPS; step++) {
            int note;
            MPI_Recv(&note, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Start(&r); // related "buffer-access-latent"
            double first = row[0]; // want "buffer-access-latent" "load from the receive buffer .* element \[0\]\(DOUBLE\), after the data arrived"
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (first != step || row[ROW - 1] != step + ROW - 1)
                bad = 1;
        }
        MPI_Request_free(&r);
        if (bad)
            printf("rank 0: a row read before MPI_Wait was not the one sent\n");
    } else {
        for (int step = 0; step < STEPS; step++) {
            for (int i = 0; i < ROW; i++)
                row[i] = step + i;
            int note = step;
            MPI_Send(row, ROW, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
            MPI_Send(&note, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
    }

    free(page);
    MPI_Finalize();
    return 0;
}
