// ranks: 2
//
// bug_irecv_after_probe_read.c: rank 0 learns the size of a particle batch
// with MPI_Probe, allocates for it, posts MPI_Irecv, and reads the batch's
// header before MPI_Wait, as if a probed message were received already.
// Breaks MPI-4.1 §3.7.2: the receive buffer belongs to MPI until a
// completion call, whenever the data actually arrives (§3.8.1: a probe
// does not receive the message).
// Expected: buffer-access-latent at the read (rank 0). The probed message
// is there when MPI_Irecv is posted, and both MPIs copy a message this
// small into the buffer inside MPI_Irecv; the tracker watches the buffer
// from before that call, so it sees the copy, and the read is right by
// chance (with a message that had not come, or one MPI moves later, it
// would read garbage).
//
// The batch gets a page of its own (posix_memalign): beside the MPI
// library's own heap objects the tracker would leave the page open for
// the library (docs/races.md).
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct particle {
    double x, y, z;
    int id;
};

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Status st;
        int n;
        MPI_Probe(1, 7, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        void *page;
        if (posix_memalign(&page, 4096, 4096) != 0 || n > 1024)
            MPI_Abort(MPI_COMM_WORLD, 1);
        int *batch = page;
        MPI_Request r;
        MPI_Irecv(batch, n, MPI_INT, 1, 7, MPI_COMM_WORLD, &r); // related "buffer-access-latent"
        int count = batch[0]; // want "buffer-access-latent" "load from the receive buffer .* at offset 0, element \[0\]\(INT\), after the data arrived"
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (count != 3 || batch[0] != 3)
            printf("rank 0: header %d, received %d\n", count, batch[0]);
        free(batch);
    } else {
        /* a header (the particle count) and the particles as ints */
        int msg[1 + 3 * sizeof(struct particle) / sizeof(int)];
        msg[0] = 3;
        for (size_t i = 1; i < sizeof msg / sizeof msg[0]; i++)
            msg[i] = (int)i;
        MPI_Send(msg, (int)(sizeof msg / sizeof msg[0]), MPI_INT, 0, 7, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
