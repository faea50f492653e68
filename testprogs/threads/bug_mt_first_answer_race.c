// ranks: 3
// cflags: -pthread
// flags: --checks=+message-race-info
//
// bug_mt_first_answer_race.c: a parallel search coordinator
// (MPI_THREAD_MULTIPLE, 4 threads on rank 0). Rank 1 searches the first
// half of a table and sends the first match it finds (tag RESULT). On
// rank 0 the collector thread takes results with MPI_ANY_SOURCE: the
// first one it files as "the answer", the next one as "the fallback".
// The dispatcher thread hands rank 2 the second half (tag WORK) after a
// fixed grace period instead of after the first answer is in; two more
// threads of rank 0 count statistics meanwhile. Rank 2 searches and
// sends its match. The grace period makes rank 1's answer come first on
// an idle machine, but nothing in the program orders the dispatch after
// the collector's first receive: with a slow rank 1 the fallback is filed
// as the answer.
// Breaks MPI-4.1 §3.5: calls of different threads are logically
// concurrent, even if one physically precedes the other; with
// MPI_ANY_SOURCE the message matched depends on arrival order, which MPI
// does not fix.
// Expected: message-race-info at the collector's first MPI_Recv (rank 1's and
// rank 2's sends are both candidates). Ordering by time (the dispatch
// comes 200 ms after the receive) would hide it.
// Every candidate message fits the receive, so no other order makes MPI
// fail: the bug is in what the program does with the order, which mpidbg
// reports only when asked (message-race-info, an info finding, with
// --checks +message-race-info).
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { RESULT = 7, WORK = 9, N = 4096, THREADS = 4 };

static int table[N];
static int answer = -1, fallback = -1;
static long stats[THREADS];

static int search(int lo, int hi, int key)
{
    for (int i = lo; i < hi; i++)
        if (table[i] == key)
            return i;
    return -1;
}

static void *collector(void *arg)
{
    (void)arg;
    MPI_Status st;
    MPI_Recv(&answer, 1, MPI_INT, MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, &st); // want "message-race-info"
    MPI_Recv(&fallback, 1, MPI_INT, MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, &st);
    return NULL;
}

static void *dispatcher(void *arg)
{
    (void)arg;
    struct timespec grace = {0, 200000000};
    nanosleep(&grace, NULL);
    int range[2] = {N / 2, N};
    MPI_Send(range, 2, MPI_INT, 2, WORK, MPI_COMM_WORLD);
    return NULL;
}

static void *statistician(void *arg)
{
    int t = (int)(long)arg;
    for (int i = t; i < N; i += THREADS)
        stats[t] += table[i] % 7 == 0;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 3) {
        fprintf(stderr, "bug_mt_first_answer_race: needs MPI_THREAD_MULTIPLE and 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < N; i++)
        table[i] = (i * 7919) % 1000;
    int key = 421;
    if (rank == 0) {
        pthread_t th[THREADS];
        pthread_create(&th[0], NULL, collector, NULL);
        pthread_create(&th[1], NULL, dispatcher, NULL);
        pthread_create(&th[2], NULL, statistician, (void *)2L);
        pthread_create(&th[3], NULL, statistician, (void *)3L);
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
        if (answer < 0 || stats[2] + stats[3] == 0)
            fprintf(stderr, "bug_mt_first_answer_race: answer %d fallback %d\n", answer, fallback);
    } else if (rank == 1) {
        int at = search(0, N / 2, key);
        MPI_Send(&at, 1, MPI_INT, 0, RESULT, MPI_COMM_WORLD);
    } else {
        int range[2];
        MPI_Recv(range, 2, MPI_INT, 0, WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int at = search(range[0], range[1], key);
        MPI_Send(&at, 1, MPI_INT, 0, RESULT, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
