// ranks: 2
// cflags: -fopenmp
// runs: 10
//
// ok_mt_omp_sections_put_barrier.c: the correct twin of
// bug_mt_omp_sections_put_barrier.c. Two steps of a hybrid
// data-acquisition code. Rank 1 keeps a table in a window over calloc'd
// memory: words 0 and 1 are the headers of steps 1 and 2 (how many
// samples rank 0 took), the words after them the histogram of all the
// samples. Both ranks open a passive-target epoch on it with
// MPI_Win_lock_all; each rank runs 4 OpenMP threads (MPI_THREAD_MULTIPLE).
// Step 1: rank 0's 4 sections put the sample count into rank 1's header
// (MPI_Put + MPI_Win_flush), histogram one half of the samples each (two
// sections), and add up the samples; the MPI_Barrier that tells rank 1
// the header is in place comes after the parallel region, whose end
// joins the header's thread to the main thread. Step 2: in a parallel
// region, thread 0 puts the header and flushes, threads 2 and 3
// histogram the step's samples, and, after an explicit `#pragma omp
// barrier`, thread 1 calls MPI_Barrier. In each step one of rank 1's 4
// sections calls MPI_Barrier and then reads the header through the window
// (MPI_Get from itself + MPI_Win_flush), the others work out the
// histogram it expects. Rank 0 puts the histogram after step 2.
// Follows MPI-4.1 §3.5 (calls of different threads are ordered only by
// the threads' synchronisation: here the region's end and the OpenMP
// barrier order each header's put and flush before the MPI_Barrier) and
// §12.7 (the get, after the barrier, does not overlap the completed put).
// Every value is checked.
// Correct: must produce no findings.
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 4, STEP1 = 4096, STEP2 = 3000, BINS = 16, HEADER1 = 0, HEADER2 = 1, HIST = 2 };

// sample i: a reproducible pseudo-random value in [0, BINS); step 1 takes
// samples 0..STEP1-1, step 2 the next STEP2
static int sample(int i) { return (int)(((unsigned)i * 2654435761u) >> 7) % BINS; }

static void histogram(int lo, int hi, int *bins)
{
    for (int i = lo; i < hi; i++)
        bins[sample(i)]++;
}

// rank 1's side of a step: one section waits for the header and reads
// it, three work out the histogram of samples lo..hi-1 into expect
static int read_header(MPI_Win win, int at, int lo, int hi, int *expect)
{
    int header = -1, part[3][BINS] = {{0}}, n = hi - lo;
#pragma omp parallel sections num_threads(THREADS)
    {
#pragma omp section
        {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Get(&header, 1, MPI_INT, 1, at, 1, MPI_INT, win);
            MPI_Win_flush(1, win);
        }
#pragma omp section
        histogram(lo, lo + n / 3, part[0]);
#pragma omp section
        histogram(lo + n / 3, lo + 2 * n / 3, part[1]);
#pragma omp section
        histogram(lo + 2 * n / 3, hi, part[2]);
    }
    for (int b = 0; b < BINS; b++)
        expect[b] += part[0][b] + part[1][b] + part[2][b];
    return header;
}

int main(int argc, char **argv)
{
    int provided, rank, size, bad = 0, total = 0, expect[BINS] = {0};
    MPI_Win win;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_omp_sections_put_barrier: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *table = calloc(HIST + BINS, sizeof *table);
    MPI_Win_create(table, (HIST + BINS) * sizeof *table, sizeof *table, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    omp_set_dynamic(0);

    if (rank == 0) {
        int count1 = STEP1, count2 = STEP2, part[4][BINS] = {{0}}, bins[BINS];
        long sum = 0;

        // step 1: the barrier after the region
#pragma omp parallel sections num_threads(THREADS)
        {
#pragma omp section
            {
                MPI_Put(&count1, 1, MPI_INT, 1, HEADER1, 1, MPI_INT, win);
                MPI_Win_flush(1, win);
            }
#pragma omp section
            histogram(0, STEP1 / 2, part[0]);
#pragma omp section
            histogram(STEP1 / 2, STEP1, part[1]);
#pragma omp section
            for (int i = 0; i < STEP1; i++)
                sum += sample(i);
        }
        MPI_Barrier(MPI_COMM_WORLD);

        // step 2: the barrier in the region, after an OpenMP barrier
#pragma omp parallel num_threads(THREADS)
        {
            int t = omp_get_thread_num();
            if (omp_get_num_threads() != THREADS)
                MPI_Abort(MPI_COMM_WORLD, 2);
            if (t == 0) {
                MPI_Put(&count2, 1, MPI_INT, 1, HEADER2, 1, MPI_INT, win);
                MPI_Win_flush(1, win);
            } else if (t >= 2)
                histogram(t == 2 ? STEP1 : STEP1 + STEP2 / 2, t == 2 ? STEP1 + STEP2 / 2 : STEP1 + STEP2, part[t]);
#pragma omp barrier
            if (t == 1)
                MPI_Barrier(MPI_COMM_WORLD);
        }
        for (int b = 0; b < BINS; b++)
            bins[b] = part[0][b] + part[1][b] + part[2][b] + part[3][b];
        MPI_Put(bins, BINS, MPI_INT, 1, HIST, BINS, MPI_INT, win);
        MPI_Win_flush(1, win);
        // the samples' sum, checked against the histogram's
        long hsum = 0;
        for (int b = 0; b < BINS; b++)
            hsum += (long)b * (part[0][b] + part[1][b]);
        bad += hsum != sum;
    } else {
        int h1 = read_header(win, HEADER1, 0, STEP1, expect);
        int h2 = read_header(win, HEADER2, STEP1, STEP1 + STEP2, expect);
        bad += (h1 != STEP1) + (h2 != STEP2);
        if (h1 != STEP1 || h2 != STEP2)
            fprintf(stderr, "rank 1: headers %d %d, want %d %d\n", h1, h2, STEP1, STEP2);
    }

    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (rank == 1)
        for (int b = 0; b < BINS; b++)
            if (table[HIST + b] != expect[b]) {
                fprintf(stderr, "rank 1: bin %d holds %d, want %d\n", b, table[HIST + b], expect[b]);
                bad++;
            }
    free(table);
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "ok_mt_omp_sections_put_barrier: %d wrong values\n" : "ok_mt_omp_sections_put_barrier: OK\n", total);
    MPI_Finalize();
    return total != 0;
}
