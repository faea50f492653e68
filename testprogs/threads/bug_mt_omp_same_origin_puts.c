// ranks: 2
// cflags: -fopenmp
//
// bug_mt_omp_same_origin_puts.c: a hybrid prime census. Rank 1 keeps a
// window over a calloc'd table: one word per thread of rank 0 for the
// number of primes in that thread's chunk, and a status word for how far
// the census went. Rank 0 (MPI_THREAD_MULTIPLE) locks rank 1's window
// with MPI_LOCK_SHARED and counts the primes below LIMIT with 4 OpenMP
// threads, one chunk each; each thread puts its count into its own word
// of rank 1's table and flushes. The threads of the first and the last
// chunk both report the census's extent in the status word (a duplicated
// duty: each thinks it is the one that does it); the last chunk's input
// comes 100 ms late, so its thread puts long after the first one's put
// was flushed. Rank 1's 4 threads meanwhile count the primes themselves,
// to check the table after the epoch.
// The bug: nothing synchronises the two threads that put into the status
// word. MPI-4.1 §3.5: calls of different threads are logically
// concurrent, even if one physically precedes the other: the first
// thread's flush orders its put before its own later calls only, not
// before the other thread's put. MPI-4.1 §12.7: concurrent conflicting
// accesses to one location of a window (two puts) are erroneous; the
// result is undefined. Natively both put the same value.
// Expected: rma-conflict at the status word's MPI_Put (both threads'
// calls are on that line). A checker that orders one process's calls by
// time misses it.
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { THREADS = 4, CHUNK = 5000, LIMIT = THREADS * CHUNK, STATUS = THREADS };

static int is_prime(int n)
{
    if (n < 2)
        return 0;
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

static int count_primes(int lo, int hi)
{
    int n = 0;
    for (int i = lo; i < hi; i++)
        n += is_prime(i);
    return n;
}

int main(int argc, char **argv)
{
    int provided, rank, size, counts[THREADS] = {0}, expect[THREADS] = {0};
    static const int extent = LIMIT;
    MPI_Win win;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_omp_same_origin_puts: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *table = calloc(THREADS + 1, sizeof *table);
    MPI_Win_create(table, (THREADS + 1) * sizeof *table, sizeof *table, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    omp_set_dynamic(0);

    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
#pragma omp parallel num_threads(THREADS)
        {
            int t = omp_get_thread_num();
            if (omp_get_num_threads() != THREADS)
                MPI_Abort(MPI_COMM_WORLD, 2);
            if (t == THREADS - 1) {
                // the last chunk's input arrives late
                struct timespec late = {0, 100 * 1000 * 1000};
                nanosleep(&late, NULL);
            }
            counts[t] = count_primes(t * CHUNK, (t + 1) * CHUNK);
            MPI_Put(&counts[t], 1, MPI_INT, 1, t, 1, MPI_INT, win);
            if (t == 0 || t == THREADS - 1)
                MPI_Put(&extent, 1, MPI_INT, 1, STATUS, 1, MPI_INT, win); // want "rma-conflict"
            MPI_Win_flush(1, win);
        }
        MPI_Win_unlock(1, win);
    } else {
#pragma omp parallel num_threads(THREADS)
        {
            int t = omp_get_thread_num();
            expect[t] = count_primes(t * CHUNK, (t + 1) * CHUNK);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (rank == 1) {
        for (int t = 0; t < THREADS; t++)
            if (table[t] != expect[t])
                fprintf(stderr, "rank 1: chunk %d has %d primes, want %d\n", t, table[t], expect[t]);
        if (table[STATUS] != LIMIT)
            fprintf(stderr, "rank 1: status %d, want %d\n", table[STATUS], LIMIT);
    }
    free(table);
    MPI_Finalize();
    return 0;
}
