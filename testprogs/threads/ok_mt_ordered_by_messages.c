// ranks: 2
// cflags: -pthread
// runs: 10
//
// ok_mt_ordered_by_messages.c: a two-stage estimate exchanged through
// windows, with the stages on different threads and ordered by messages.
// Each rank keeps a window over a calloc'd table of SLOTS doubles, which
// its peer fills, and opens a passive-target epoch on it with
// MPI_Win_lock_all. Each rank runs 4 pthreads (MPI_THREAD_MULTIPLE): for
// each slot s, a stage-1 thread computes a coarse estimate of an integral
// (the midpoint rule on 8 intervals), puts it into the peer's slot s and
// flushes, then tells the peer with a message (tag s); it also receives
// the peer's message of tag s and answers it with a reply (tag REPLY+s).
// A stage-2 thread computes the fine estimate (on 4096 intervals),
// receives the peer's reply of tag REPLY+s, and only then overwrites the
// peer's slot s with the fine estimate (MPI_Put + MPI_Win_flush).
// Follows MPI-4.1 §3.5 (calls of different threads are ordered only by
// synchronisation: here the chain of messages, stage-1 put and flush,
// send, the peer's receive and reply, the stage-2 thread's receive,
// orders the two threads' puts to one slot) and §12.7 (the first put was
// completed at the target by the flush before the second was issued).
// Every value is checked.
// Correct: must produce no findings.
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 4, SLOTS = 2, COARSE = 8, FINE = 4096, REPLY = 10 };

static int rank, peer;
static MPI_Win win;
static double coarse[SLOTS], fine[SLOTS];

// integral s of rank r: the integral of 1/(1 + k x^2) over [0, 1] with k
// = r + s + 1, by the midpoint rule on n intervals
static double estimate(int r, int s, int n)
{
    double k = r + s + 1, h = 1.0 / n, sum = 0;
    for (int i = 0; i < n; i++) {
        double x = (i + 0.5) * h;
        sum += 1.0 / (1.0 + k * x * x);
    }
    return sum * h;
}

static void *stage1(void *arg)
{
    int s = (int)(long)arg, note = s, got = -1;
    MPI_Request req;
    coarse[s] = estimate(rank, s, COARSE);
    MPI_Put(&coarse[s], 1, MPI_DOUBLE, peer, s, 1, MPI_DOUBLE, win);
    MPI_Win_flush(peer, win);
    MPI_Isend(&note, 1, MPI_INT, peer, s, MPI_COMM_WORLD, &req);
    // the peer's coarse estimate for our slot s is in: let its stage 2 go on
    MPI_Recv(&got, 1, MPI_INT, peer, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&got, 1, MPI_INT, peer, REPLY + s, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return NULL;
}

static void *stage2(void *arg)
{
    int s = (int)(long)arg, ack = -1;
    fine[s] = estimate(rank, s, FINE);
    MPI_Recv(&ack, 1, MPI_INT, peer, REPLY + s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Put(&fine[s], 1, MPI_DOUBLE, peer, s, 1, MPI_DOUBLE, win);
    MPI_Win_flush(peer, win);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size, bad = 0, total = 0;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_ordered_by_messages: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    peer = 1 - rank;
    double *table = calloc(SLOTS, sizeof *table);
    MPI_Win_create(table, SLOTS * sizeof *table, sizeof *table, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    for (long s = 0; s < SLOTS; s++) {
        pthread_create(&th[s], NULL, stage1, (void *)s);
        pthread_create(&th[SLOTS + s], NULL, stage2, (void *)s);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    MPI_Win_unlock_all(win);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    for (int s = 0; s < SLOTS; s++)
        if (table[s] != estimate(peer, s, FINE)) {
            fprintf(stderr, "rank %d: slot %d holds %.17g, want %.17g\n", rank, s, table[s], estimate(peer, s, FINE));
            bad++;
        }
    free(table);
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "ok_mt_ordered_by_messages: %d wrong values\n" : "ok_mt_ordered_by_messages: OK\n", total);
    MPI_Finalize();
    return total != 0;
}
