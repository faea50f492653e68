// ranks: 3
// cflags: -pthread
// flags: --checks=+message-race-info
//
// bug_mt_message_race.c: three ranks with 4 worker threads each
// (pthread_create, MPI_THREAD_MULTIPLE), as ok_mt_race_free_sources.c:
// ranks 1 and 2 each send rank 0 their boundary flux (tag 0) as soon as
// they start, and wait for a correction (worker 1, tag 1); then, past a
// barrier of the workers, workers 2 and 3 of every rank run a ring halo
// exchange. On rank 0, workers 0 and 1 each receive
// one flux with MPI_ANY_SOURCE; worker 0 takes what it got for the left
// boundary (rank 1's) and worker 1 for the right one (rank 2's), and each
// sends the correction to the rank it assumes. Which thread's receive
// takes which message depends on timing, so a rank may get the
// correction computed from the other's flux.
// Breaks MPI-4.1 §3.5: with MPI_ANY_SOURCE the message matched depends on
// arrival order, which MPI does not fix; nothing orders rank 1's send and
// rank 2's send, nor the two threads' receives (§11.6.1: concurrent
// calls execute in some order).
// Expected: message-race-info at rank 0's MPI_Recv with MPI_ANY_SOURCE (both
// threads' receives, naming ranks 1 and 2 as the candidates).
// Every candidate message fits the receive, so no other order makes MPI
// fail: the bug is in what the program does with the order, which mpidbg
// reports only when asked (message-race-info, an info finding, with
// --checks +message-race-info).
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, STEPS = 4, N = 8 };

static int rank, size;
static double last[THREADS];
static pthread_barrier_t phase; /* the halo exchange follows the fluxes */

static void *worker(void *arg)
{
    int t = (int)(long)arg, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (t >= 2) {
        double out[N], in[N];
        pthread_barrier_wait(&phase);
        for (int step = 0; step < STEPS; step++) {
            for (int i = 0; i < N; i++)
                out[i] = 100 * rank + 10 * step + i + t;
            MPI_Sendrecv(out, N, MPI_DOUBLE, next, t, in, N, MPI_DOUBLE, prev, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            last[t] = in[N - 1];
        }
    } else if (rank == 0) {
        int to = t + 1; // bug: assumes worker 0 got rank 1's flux, worker 1 rank 2's
        double f, corr;
        MPI_Recv(&f, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "message-race-info" "tag 0"
        corr = t == 0 ? -f : f / 2;
        MPI_Send(&corr, 1, MPI_DOUBLE, to, 1, MPI_COMM_WORLD);
    } else if (t == 1) {
        MPI_Recv(&last[t], 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (t < 2)
        pthread_barrier_wait(&phase);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 3) {
        fprintf(stderr, "bug_mt_message_race: needs MPI_THREAD_MULTIPLE and 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank != 0) {
        double f = 1.5 * rank;
        MPI_Send(&f, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    pthread_barrier_init(&phase, NULL, THREADS);
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);

    MPI_Finalize();
    return last[1] > 1e9;
}
