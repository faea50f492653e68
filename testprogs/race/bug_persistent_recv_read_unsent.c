// ranks: 2
//
// bug_persistent_recv_read_unsent.c: a request-reply loop with a
// persistent receive for the replies. Each step rank 0 starts the
// receive, reads the reply buffer's status word to decide what to ask,
// then sends the request; rank 1 answers only after it got the request.
// Breaks MPI-4.1 §3.9 and §3.7.2: the buffer of a started persistent
// receive is MPI's until MPI_Wait completes it.
// Expected: recv-buffer-access at the read (rank 0), once for the four
// steps, the MPI_Start as the related call. The reply cannot have come
// when rank 0 reads: rank 1 sends it only after rank 0's request, which
// follows the read.
//
// The reply gets a page of its own (posix_memalign): beside the MPI
// library's own heap objects the tracker would leave the page open for
// the library (docs/races.md).
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 4

struct reply {
    int status;
    int value;
};

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        void *page;
        if (posix_memalign(&page, 4096, 4096) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        struct reply *rep = page;
        rep->status = 0;
        MPI_Request r;
        MPI_Recv_init(rep, 2, MPI_INT, 1, 5, MPI_COMM_WORLD, &r);
        int sum = 0;
        for (int step = 0; step < STEPS; step++) {
            MPI_Start(&r); // related "recv-buffer-access"
            int ask = rep->status == 0 ? step : -1; // want "recv-buffer-access" "load from the receive buffer .* element \[0\]\(INT\), before the receive completed"
            MPI_Send(&ask, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            sum += rep->value;
        }
        MPI_Request_free(&r);
        if (sum != 2 * (0 + 1 + 2 + 3))
            printf("rank 0: replies summed to %d\n", sum);
        free(page);
    } else {
        for (int step = 0; step < STEPS; step++) {
            int ask;
            MPI_Recv(&ask, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            struct reply out = {0, 2 * ask};
            MPI_Send(&out, 2, MPI_INT, 0, 5, MPI_COMM_WORLD);
        }
    }

    MPI_Finalize();
    return 0;
}
