// ranks: 2
// cflags: -pthread
// runs: 10
//
// ok_mt_pthread_same_origin_puts.c: the correct twin of
// bug_mt_pthread_same_origin_puts.c. A Collatz survey on POSIX threads.
// Rank 1 keeps a window over a calloc'd table: one word per worker of
// rank 0 for the total number of Collatz steps of the starting values in
// that worker's chunk, a status word (STARTED, COMPUTED, DONE), the
// running sum of the chunks' totals and the longest chain found. Rank 0
// (MPI_THREAD_MULTIPLE) locks rank 1's window with MPI_LOCK_SHARED and
// surveys the starting values 1..LIMIT with 4 pthreads, one chunk each
// (the last chunk's input comes 100 ms late). Worker 0 first puts STARTED
// into the status word and flushes. Each worker puts its total into its
// own word and flushes, then waits at a pthread barrier, after which
// worker 3 puts COMPUTED into the status word and flushes. Then the
// workers merge in turn, handed on by a mutex and a condition variable:
// worker t waits for its turn, puts the running sum and the longest chain
// so far and flushes, and only then passes the turn to worker t+1 and
// signals. The main thread joins the workers and then puts DONE into the
// status word. Rank 1's 4 pthreads meanwhile survey the values
// themselves, to check the table after the epoch.
// Follows MPI-4.1 §3.5 (calls of different threads are ordered by the
// threads' synchronisation: the pthread barrier orders worker 0's status
// put and flush before worker 3's, each hand-off orders a worker's puts
// and flush before the next worker's, and the join orders worker 3's
// before the main thread's) and §12.7 (a put completed by MPI_Win_flush
// does not conflict with a later put of the same origin to the same
// location).
// Every value is checked.
// Correct: must produce no findings.
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { THREADS = 4, CHUNK = 20000, LIMIT = THREADS * CHUNK };
enum { STATUS = THREADS, SUM, LONGEST, WORDS };
enum { STARTED = 1, COMPUTED = 2, DONE = 3 };

static int rank;
static MPI_Win win;
static long totals[THREADS], longest[THREADS];
static const long started = STARTED, computed = COMPUTED, done = DONE;

static pthread_barrier_t computed_all;
static pthread_mutex_t turn_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cv = PTHREAD_COND_INITIALIZER;
static int turn;
static long merged[2]; // the running sum and longest chain, under turn_mu's hand-off

// steps: how many Collatz steps take n to 1
static long steps(unsigned long long n)
{
    long s = 0;
    for (; n != 1; s++)
        n = n % 2 ? 3 * n + 1 : n / 2;
    return s;
}

// survey adds up the steps of chunk t's starting values and stores its
// longest chain in *most
static long survey(int t, long *most)
{
    long sum = 0;
    *most = 0;
    for (int n = t * CHUNK + 1; n <= (t + 1) * CHUNK; n++) {
        long s = steps((unsigned long long)n);
        sum += s;
        if (s > *most)
            *most = s;
    }
    return sum;
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    if (t == 0) {
        MPI_Put(&started, 1, MPI_LONG, 1, STATUS, 1, MPI_LONG, win);
        MPI_Win_flush(1, win);
    }
    if (t == THREADS - 1) {
        // the last chunk's input arrives late
        struct timespec late = {0, 100 * 1000 * 1000};
        nanosleep(&late, NULL);
    }
    totals[t] = survey(t, &longest[t]);
    MPI_Put(&totals[t], 1, MPI_LONG, 1, t, 1, MPI_LONG, win);
    MPI_Win_flush(1, win);

    pthread_barrier_wait(&computed_all);
    if (t == THREADS - 1) {
        MPI_Put(&computed, 1, MPI_LONG, 1, STATUS, 1, MPI_LONG, win);
        MPI_Win_flush(1, win);
    }

    pthread_mutex_lock(&turn_mu);
    while (turn != t)
        pthread_cond_wait(&turn_cv, &turn_mu);
    pthread_mutex_unlock(&turn_mu);
    merged[0] += totals[t];
    if (longest[t] > merged[1])
        merged[1] = longest[t];
    MPI_Put(merged, 2, MPI_LONG, 1, SUM, 2, MPI_LONG, win);
    MPI_Win_flush(1, win);
    pthread_mutex_lock(&turn_mu);
    turn = t + 1;
    pthread_cond_broadcast(&turn_cv);
    pthread_mutex_unlock(&turn_mu);
    return NULL;
}

static void *checker(void *arg)
{
    int t = (int)(long)arg;
    totals[t] = survey(t, &longest[t]);
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
        fprintf(stderr, "ok_mt_pthread_same_origin_puts: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long *table = calloc(WORDS, sizeof *table);
    MPI_Win_create(table, WORDS * sizeof *table, sizeof *table, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    pthread_barrier_init(&computed_all, NULL, THREADS);

    if (rank == 0)
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, rank == 0 ? worker : checker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    if (rank == 0) {
        MPI_Put(&done, 1, MPI_LONG, 1, STATUS, 1, MPI_LONG, win);
        MPI_Win_unlock(1, win);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (rank == 1) {
        long sum = 0, most = 0;
        for (int t = 0; t < THREADS; t++) {
            if (table[t] != totals[t]) {
                fprintf(stderr, "rank 1: chunk %d took %ld steps, want %ld\n", t, table[t], totals[t]);
                bad++;
            }
            sum += totals[t];
            if (longest[t] > most)
                most = longest[t];
        }
        if (table[STATUS] != DONE || table[SUM] != sum || table[LONGEST] != most) {
            fprintf(stderr, "rank 1: status %ld sum %ld longest %ld, want %d %ld %ld\n", table[STATUS], table[SUM],
                    table[LONGEST], DONE, sum, most);
            bad++;
        }
    }
    pthread_barrier_destroy(&computed_all);
    free(table);
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "ok_mt_pthread_same_origin_puts: %d wrong values\n" : "ok_mt_pthread_same_origin_puts: OK\n", total);
    MPI_Finalize();
    return total != 0;
}
