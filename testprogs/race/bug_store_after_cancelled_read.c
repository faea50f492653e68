// ranks: 2
// cflags: -pthread
//
// bug_store_after_cancelled_read.c: each rank runs a control thread that
// waits for commands on a pipe, reading them with read(2) into a command
// area allocated with the rank's halo block, on the page of the halo's
// receive buffer. With the halo receive pending, the main thread shuts
// the control thread down with pthread_cancel (it is blocked in the
// read, a cancellation point), then fills the first cell of the halo it
// is still receiving, before MPI_Wait.
// Breaks MPI-4.1 §3.7.2: the receiver must not access any part of the
// receive buffer after a nonblocking receive operation is called, until
// the receive completes.
// Expected: recv-buffer-access at the store (both ranks). The read the
// control thread was cancelled in had the page opened for its call: the
// page must be watched again once the thread is gone, or the store is
// missed.
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

enum { HALO = 16, CMD = 64 };

struct block {
    int halo[HALO];  /* the receive buffer */
    char cmd[CMD];   /* the control thread's command, on the same page */
};

static int ctl[2];
static struct block *blk;

static void *control(void *arg)
{
    (void)arg;
    for (;;) {
        ssize_t n = read(ctl[0], blk->cmd, CMD); /* no command comes: blocks until cancelled */
        if (n <= 0)
            return NULL;
    }
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    blk = calloc(1, sizeof *blk);
    if (!blk || pipe(ctl) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);

    MPI_Request rq;
    MPI_Irecv(blk->halo, HALO, MPI_INT, peer, 0, MPI_COMM_WORLD, &rq);

    pthread_t t;
    pthread_create(&t, NULL, control, NULL);
    usleep(100000); /* the control thread is in its read */
    pthread_cancel(t);
    pthread_join(t, NULL);

    blk->halo[0] = -1; // want "recv-buffer-access" "store to the receive buffer .* before the receive completed"

    int edge[HALO];
    for (int i = 0; i < HALO; i++)
        edge[i] = rank * 100 + i;
    MPI_Send(edge, HALO, MPI_INT, peer, 0, MPI_COMM_WORLD);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    close(ctl[0]);
    close(ctl[1]);
    free(blk);
    MPI_Finalize();
    return 0;
}
