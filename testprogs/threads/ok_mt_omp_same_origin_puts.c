// ranks: 2
// cflags: -fopenmp
// runs: 10
//
// ok_mt_omp_same_origin_puts.c: the correct twin of
// bug_mt_omp_same_origin_puts.c. A hybrid prime census. Rank 1 keeps a
// window over a calloc'd table: one word per thread of rank 0 for the
// number of primes in that thread's chunk, a status word (STARTED, then
// DONE), the number of chunks merged so far and the largest prime found
// so far. Rank 0 (MPI_THREAD_MULTIPLE) locks rank 1's window with
// MPI_LOCK_SHARED and counts the primes below LIMIT with 4 OpenMP
// threads, one chunk each (the last chunk's input comes 100 ms late).
// Thread 0 first puts STARTED into the status word and flushes. Each
// thread puts its count into its own word and flushes; then, inside
// `#pragma omp critical`, it bumps the merged-chunks counter and puts it
// and flushes before leaving the critical section; then, holding an
// omp_lock_t, it raises the largest prime and puts it and flushes before
// unsetting the lock. After a `#pragma omp barrier` thread 3 puts DONE
// into the status word. Rank 1's 4 threads meanwhile count the primes
// themselves, to check the table after the epoch.
// Follows MPI-4.1 §3.5 (calls of different threads are ordered by the
// threads' synchronisation: the OpenMP barrier orders thread 0's status
// put and flush before thread 3's; the critical section and the lock
// order each thread's put and flush before the next holder's put) and
// §12.7 (a put completed by MPI_Win_flush does not conflict with a later
// put of the same origin to the same location).
// Every value is checked.
// Correct: must produce no findings.
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { THREADS = 4, CHUNK = 5000, LIMIT = THREADS * CHUNK };
enum { STATUS = THREADS, MERGED, LARGEST, WORDS };
enum { STARTED = 1, DONE = 2 };

static int is_prime(int n)
{
    if (n < 2)
        return 0;
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

// count_primes counts the primes in [lo, hi) and stores the largest in
// *largest (0 when there is none)
static int count_primes(int lo, int hi, int *largest)
{
    int n = 0;
    *largest = 0;
    for (int i = lo; i < hi; i++)
        if (is_prime(i)) {
            n++;
            *largest = i;
        }
    return n;
}

int main(int argc, char **argv)
{
    int provided, rank, size, bad = 0, total = 0;
    int counts[THREADS] = {0}, expect[THREADS] = {0}, merged = 0, largest = 0, expect_largest = 0;
    static const int started = STARTED, done = DONE;
    omp_lock_t largest_lock;
    MPI_Win win;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_omp_same_origin_puts: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *table = calloc(WORDS, sizeof *table);
    MPI_Win_create(table, WORDS * sizeof *table, sizeof *table, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    omp_set_dynamic(0);
    omp_init_lock(&largest_lock);

    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
#pragma omp parallel num_threads(THREADS)
        {
            int t = omp_get_thread_num(), mine;
            if (omp_get_num_threads() != THREADS)
                MPI_Abort(MPI_COMM_WORLD, 2);
            if (t == 0) {
                MPI_Put(&started, 1, MPI_INT, 1, STATUS, 1, MPI_INT, win);
                MPI_Win_flush(1, win);
            }
            if (t == THREADS - 1) {
                // the last chunk's input arrives late
                struct timespec late = {0, 100 * 1000 * 1000};
                nanosleep(&late, NULL);
            }
            counts[t] = count_primes(t * CHUNK, (t + 1) * CHUNK, &mine);
            MPI_Put(&counts[t], 1, MPI_INT, 1, t, 1, MPI_INT, win);
            MPI_Win_flush(1, win);
#pragma omp critical(merge)
            {
                merged++;
                MPI_Put(&merged, 1, MPI_INT, 1, MERGED, 1, MPI_INT, win);
                MPI_Win_flush(1, win);
            }
            omp_set_lock(&largest_lock);
            if (mine > largest)
                largest = mine;
            MPI_Put(&largest, 1, MPI_INT, 1, LARGEST, 1, MPI_INT, win);
            MPI_Win_flush(1, win);
            omp_unset_lock(&largest_lock);
#pragma omp barrier
            if (t == THREADS - 1) {
                MPI_Put(&done, 1, MPI_INT, 1, STATUS, 1, MPI_INT, win);
                MPI_Win_flush(1, win);
            }
        }
        MPI_Win_unlock(1, win);
    } else {
#pragma omp parallel num_threads(THREADS)
        {
            int t = omp_get_thread_num(), mine;
            expect[t] = count_primes(t * CHUNK, (t + 1) * CHUNK, &mine);
            if (t == THREADS - 1)
                expect_largest = mine;
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (rank == 1) {
        for (int t = 0; t < THREADS; t++)
            if (table[t] != expect[t]) {
                fprintf(stderr, "rank 1: chunk %d has %d primes, want %d\n", t, table[t], expect[t]);
                bad++;
            }
        if (table[STATUS] != DONE || table[MERGED] != THREADS || table[LARGEST] != expect_largest) {
            fprintf(stderr, "rank 1: status %d merged %d largest %d, want %d %d %d\n", table[STATUS], table[MERGED],
                    table[LARGEST], DONE, THREADS, expect_largest);
            bad++;
        }
    }
    omp_destroy_lock(&largest_lock);
    free(table);
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "ok_mt_omp_same_origin_puts: %d wrong values\n" : "ok_mt_omp_same_origin_puts: OK\n", total);
    MPI_Finalize();
    return total != 0;
}
