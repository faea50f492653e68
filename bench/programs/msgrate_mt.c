/* Small-message rate with MPI_THREAD_MULTIPLE: msgrate.c run by THREADS
 * threads per rank at once. Thread t of rank 0 posts WINDOW 8-byte
 * MPI_Isends to rank 1 with tag t, thread t of rank 1 posts WINDOW
 * MPI_Irecvs with tag t (one tag per thread: a thread's messages match
 * only its peer thread's receives, in order by MPI's non-overtaking rule,
 * MPI-4.1 §3.5); both MPI_Waitall, and thread t of rank 1
 * acknowledges with a zero-byte message of tag THREADS + t. A batch is
 * timed on rank 0 from an MPI_Barrier until all its threads have their
 * acknowledgements; the result is the batch's time over all messages of
 * all threads, the median in nanoseconds per message: the inverse of the
 * aggregate message rate (1e9 / value messages per second), in the unit
 * the other message rates report, so that the ratios read the same way.
 * Besides the per-call cost of the shim this measures its locks under
 * MPI_THREAD_MULTIPLE (shared state taken by several threads at once).
 * The threads wait in MPI's progress loops, so with fewer than
 * 2 * THREADS cores for the two ranks the number is mostly how soon the
 * scheduler runs the thread a peer waits for, not the cost of a call.
 *
 * Plain pthreads rather than OpenMP: the threads are created once and
 * wait for each batch at a pthread barrier, which sleeps, where an OpenMP
 * runtime's idle threads spin (GOMP_SPINCOUNT) on cores the ranks'
 * progress loops already share; and the program needs no runtime the
 * shim's thread tests do not already exercise. */
#include "common.h"
#include <pthread.h>

/* ITERS per thread: THREADS * ITERS * WINDOW = 6400 messages per batch,
 * half a batch of msgrate.c: with fewer cores than threads a message
 * takes microseconds (tens with Open MPI 4.1 on 2 cores), and a run
 * should still take seconds, not tens of them */
enum { THREADS = 4, WINDOW = 64, BATCHES = 21, ITERS = 25 };

static int rank;
/* start: the batch's clock runs; done: every thread has finished it */
static pthread_barrier_t start, done;

static void *stream(void *arg)
{
    int t = (int)(long)arg;
    double buf[WINDOW];
    MPI_Request req[WINDOW];
    for (int i = 0; i < WINDOW; i++)
        buf[i] = t * WINDOW + i;
    for (int b = -1; b < BATCHES; b++) {
        pthread_barrier_wait(&start);
        for (int it = 0; it < ITERS; it++) {
            if (rank == 0) {
                for (int i = 0; i < WINDOW; i++)
                    MPI_Isend(&buf[i], 1, MPI_DOUBLE, 1, t, MPI_COMM_WORLD, &req[i]);
                MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                MPI_Recv(NULL, 0, MPI_BYTE, 1, THREADS + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                for (int i = 0; i < WINDOW; i++)
                    MPI_Irecv(&buf[i], 1, MPI_DOUBLE, 0, t, MPI_COMM_WORLD, &req[i]);
                MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                MPI_Send(NULL, 0, MPI_BYTE, 0, THREADS + t, MPI_COMM_WORLD);
            }
        }
        pthread_barrier_wait(&done);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    double samples[BATCHES];
    pthread_t th[THREADS];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* a lower level would make the threads' calls erroneous
     * (MPI-4.1 §11.6), not just slower: no number */
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "msgrate_mt: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* the main thread only times: THREADS streams and it meet at both */
    pthread_barrier_init(&start, NULL, THREADS + 1);
    pthread_barrier_init(&done, NULL, THREADS + 1);
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, stream, (void *)t);
    for (int b = -1; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pthread_barrier_wait(&start);
        pthread_barrier_wait(&done);
        if (b >= 0)
            samples[b] = (MPI_Wtime() - t0) / ((double)THREADS * ITERS * WINDOW) * 1e9;
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&done);
    result("msgrate_mt_8B_per_message", median(samples, BATCHES), "ns");
    MPI_Finalize();
    return 0;
}
