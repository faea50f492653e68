// ranks: 2
// cflags: -pthread
//
// bug_mt_pthread_same_origin_puts.c: a Collatz survey on POSIX threads.
// Rank 1 keeps a window over a calloc'd table: one word per worker of
// rank 0 for the total number of Collatz steps of the starting values in
// that worker's chunk, and a status word for how far the survey went.
// Rank 0 (MPI_THREAD_MULTIPLE) locks rank 1's window with MPI_LOCK_SHARED
// and surveys the starting values 1..LIMIT with 4 pthreads, one chunk
// each (started last chunk first); each worker puts its total into its
// own word of rank 1's table and flushes. The workers of the first and
// the last chunk both report the survey's extent in the status word (a
// duplicated duty: each thinks it is the one that does it); the last
// chunk's input comes 100 ms late, so its worker puts long after the
// first one's put was flushed. Rank 1's 4 pthreads meanwhile survey the
// values themselves, to check the table after the epoch.
// The bug: nothing synchronises the two workers that put into the status
// word (they share no mutex, condition variable or barrier, and neither
// joins the other). MPI-4.1 §3.5: calls of different threads are
// logically concurrent, even if one physically precedes the other: the
// first worker's flush orders its put before its own later calls only.
// MPI-4.1 §12.7: concurrent conflicting accesses to one location of a
// window (two puts) are erroneous; the result is undefined. Natively both
// put the same value.
// Expected: rma-conflict at the status word's MPI_Put (both workers'
// calls are on that line). A checker that orders one process's calls by
// time misses it.
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { THREADS = 4, CHUNK = 20000, LIMIT = THREADS * CHUNK, STATUS = THREADS };

static int rank;
static MPI_Win win;
static long totals[THREADS];
static const long extent = LIMIT;

// steps: how many Collatz steps take n to 1
static long steps(unsigned long long n)
{
    long s = 0;
    for (; n != 1; s++)
        n = n % 2 ? 3 * n + 1 : n / 2;
    return s;
}

static long survey(int t)
{
    long sum = 0;
    for (int n = t * CHUNK + 1; n <= (t + 1) * CHUNK; n++)
        sum += steps((unsigned long long)n);
    return sum;
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    if (t == THREADS - 1) {
        // the last chunk's input arrives late
        struct timespec late = {0, 100 * 1000 * 1000};
        nanosleep(&late, NULL);
    }
    totals[t] = survey(t);
    MPI_Put(&totals[t], 1, MPI_LONG, 1, t, 1, MPI_LONG, win);
    if (t == 0 || t == THREADS - 1)
        MPI_Put(&extent, 1, MPI_LONG, 1, STATUS, 1, MPI_LONG, win); // want "rma-conflict"
    MPI_Win_flush(1, win);
    return NULL;
}

static void *checker(void *arg)
{
    int t = (int)(long)arg;
    totals[t] = survey(t);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_pthread_same_origin_puts: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long *table = calloc(THREADS + 1, sizeof *table);
    MPI_Win_create(table, (THREADS + 1) * sizeof *table, sizeof *table, MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    if (rank == 0)
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    // the last chunk's worker starts first: its input is the slowest to come
    for (long t = THREADS - 1; t >= 0; t--)
        pthread_create(&th[t], NULL, rank == 0 ? worker : checker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    if (rank == 0)
        MPI_Win_unlock(1, win);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (rank == 1) {
        for (int t = 0; t < THREADS; t++)
            if (table[t] != totals[t])
                fprintf(stderr, "rank 1: chunk %d took %ld steps, want %ld\n", t, table[t], totals[t]);
        if (table[STATUS] != LIMIT)
            fprintf(stderr, "rank 1: status %ld, want %d\n", table[STATUS], LIMIT);
    }
    free(table);
    MPI_Finalize();
    return 0;
}
