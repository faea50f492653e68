// ranks: 3
// cflags: -pthread
// runs: 10
//
// ok_mt_rma_windows.c: the correct twin of bug_mt_rma_conflict.c. One
// window per worker thread (MPI_THREAD_MULTIPLE, 4 pthreads per rank,
// windows over calloc'd slots, made in order before the workers start); each step a worker
// opens a fence epoch on its own window and puts its rank's particle
// count into the slot its right neighbour keeps for it, and reads back
// the count its left neighbour put into its own slot. Four windows go
// through their epochs at the same time, each fenced by one thread.
// Follows MPI-4.1 §12.5.1 (a fence ends the epoch for the window's
// group), §12.7 (one put per target location per epoch) and §11.6.1
// (threads may call MPI at once, each on its own window).
// Every value is checked.
// Correct: must produce no findings.
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 4, STEPS = 4 };

static int rank, size;
static MPI_Win wins[THREADS];
static int *slots[THREADS];
static int errors[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg, right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int step = 0; step < STEPS; step++) {
        int count = 100 * rank + 10 * t + step;
        MPI_Win_fence(0, wins[t]);
        MPI_Put(&count, 1, MPI_INT, right, rank, 1, MPI_INT, wins[t]);
        MPI_Win_fence(0, wins[t]);
        if (slots[t][left] != 100 * left + 10 * t + step)
            errors[t]++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, bad = 0, total = 0;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "ok_mt_rma_windows: needs MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int t = 0; t < THREADS; t++)
    {
        slots[t] = calloc((size_t)size, sizeof(int));
        MPI_Win_create(slots[t], size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wins[t]);
    }
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++)
        bad += errors[t];
    for (int t = 0; t < THREADS; t++) {
        MPI_Win_free(&wins[t]);
        free(slots[t]);
    }
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "ok_mt_rma_windows: %d wrong values\n" : "ok_mt_rma_windows: OK\n", total);
    MPI_Finalize();
    return total != 0;
}
