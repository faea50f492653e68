// ranks: 2
// cflags: -fopenmp
//
// bug_mt_omp_sections_put_barrier.c: one step of a hybrid data-acquisition
// code. Rank 1 keeps a table in a window over calloc'd memory: word 0 is
// the header (how many samples rank 0 took), words 1..BINS the histogram
// of those samples. Both ranks open a passive-target epoch on it with
// MPI_Win_lock_all. Rank 0 (MPI_THREAD_MULTIPLE) runs 4 OpenMP sections
// on 4 threads: one puts the sample count into rank 1's header (MPI_Put +
// MPI_Win_flush), two histogram one half of the samples each, and one
// waits 100 ms, "long enough for the header to be out", then calls
// MPI_Barrier to tell rank 1 that the header is in place. Rank 1 runs 4
// sections too: one calls MPI_Barrier and then reads its header through
// the window (MPI_Get from itself + MPI_Win_flush), three work out the
// histogram it expects. After its parallel region rank 0 puts the
// histogram; both end their epochs, and rank 1 checks the table.
// The bug: the barrier was made by a thread that never synchronised with
// the thread that put the header; the sleep orders the two only in time.
// MPI-4.1 §3.5: calls of different threads are logically concurrent, even
// if one physically precedes the other, so nothing orders the put before
// the barrier, nor before rank 1's get after it. MPI-4.1 §12.7:
// concurrent conflicting accesses to one location of a window (here a put
// and a get of word 0 by two origins, in overlapping passive-target
// epochs) are erroneous. Natively the header arrives in time.
// Expected: rma-conflict at rank 0's MPI_Put (rank 1's MPI_Get is the
// related place). A checker that orders threads by time misses it.
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { THREADS = 4, SAMPLES = 4096, BINS = 16, HEADER = 0 };

// sample i of the step: a reproducible pseudo-random value in [0, BINS)
static int sample(int i) { return (int)(((unsigned)i * 2654435761u) >> 7) % BINS; }

static void histogram(int lo, int hi, int *bins)
{
    for (int i = lo; i < hi; i++)
        bins[sample(i)]++;
}

int main(int argc, char **argv)
{
    int provided, rank, size, expect[BINS] = {0};
    MPI_Win win;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_omp_sections_put_barrier: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *table = calloc(1 + BINS, sizeof *table);
    MPI_Win_create(table, (1 + BINS) * sizeof *table, sizeof *table, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);

    if (rank == 0) {
        int count = SAMPLES, low[BINS] = {0}, high[BINS] = {0}, bins[BINS];
        omp_set_dynamic(0);
        // the barrier's section comes first: the thread that takes it is
        // asleep when the others hand out the rest, so the header's put
        // is made by another thread
#pragma omp parallel sections num_threads(THREADS)
        {
#pragma omp section
            {
                struct timespec settle = {0, 100 * 1000 * 1000};
                nanosleep(&settle, NULL);
                MPI_Barrier(MPI_COMM_WORLD);
            }
#pragma omp section
            {
                MPI_Put(&count, 1, MPI_INT, 1, HEADER, 1, MPI_INT, win); // want "rma-conflict"
                MPI_Win_flush(1, win);
            }
#pragma omp section
            histogram(0, SAMPLES / 2, low);
#pragma omp section
            histogram(SAMPLES / 2, SAMPLES, high);
        }
        for (int b = 0; b < BINS; b++)
            bins[b] = low[b] + high[b];
        MPI_Put(bins, BINS, MPI_INT, 1, 1, BINS, MPI_INT, win);
        MPI_Win_flush(1, win);
    } else {
        // rank 1's sections: one waits for the header, three work out the
        // histogram rank 0 should send, to check it after the step
        int header = -1, want[3][BINS] = {{0}};
        omp_set_dynamic(0);
#pragma omp parallel sections num_threads(THREADS)
        {
#pragma omp section
            {
                MPI_Barrier(MPI_COMM_WORLD);
                MPI_Get(&header, 1, MPI_INT, 1, HEADER, 1, MPI_INT, win); // related "rma-conflict"
                MPI_Win_flush(1, win);
            }
#pragma omp section
            histogram(0, SAMPLES / 3, want[0]);
#pragma omp section
            histogram(SAMPLES / 3, 2 * SAMPLES / 3, want[1]);
#pragma omp section
            histogram(2 * SAMPLES / 3, SAMPLES, want[2]);
        }
        if (header != SAMPLES)
            fprintf(stderr, "rank 1: header %d, want %d\n", header, SAMPLES);
        for (int b = 0; b < BINS; b++)
            expect[b] = want[0][b] + want[1][b] + want[2][b];
    }

    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (rank == 1)
        for (int b = 0; b < BINS; b++)
            if (table[1 + b] != expect[b])
                fprintf(stderr, "rank 1: bin %d holds %d, want %d\n", b, table[1 + b], expect[b]);
    free(table);
    MPI_Finalize();
    return 0;
}
