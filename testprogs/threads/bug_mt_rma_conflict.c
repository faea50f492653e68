// ranks: 3
// cflags: -pthread
//
// bug_mt_rma_conflict.c: a particle code's boundary exchange, one window
// per worker thread (MPI_THREAD_MULTIPLE, 4 pthreads per rank, windows over
// calloc'd slots made in order before the workers start). Each step a worker opens a fence
// epoch on its own window and puts its rank's particle count into the
// slot its right neighbour keeps for it. In worker 2's window, ranks 1
// and 2 both put into rank 0's slot 0 (rank 2 should use slot 2): two
// concurrent puts to the same bytes in one fence epoch, while the other
// workers' windows go through their own epochs at the same time.
// Breaks MPI-4.1 §12.7: concurrent conflicting accesses to the same
// memory location in a window are erroneous (the result is undefined).
// Expected: rma-conflict at the MPI_Put of the faulty thread (both
// origins' calls are on that line).
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 4, STEPS = 4 };

static int rank, size;
static MPI_Win wins[THREADS];
static int *slots[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg, right = (rank + 1) % size;
    for (int step = 0; step < STEPS; step++) {
        int count = 100 * rank + 10 * t + step;
        MPI_Win_fence(0, wins[t]);
        if (t == 2 && rank != 0)
            MPI_Put(&count, 1, MPI_INT, 0, 0, 1, MPI_INT, wins[t]); // want "rma-conflict"
        else
            MPI_Put(&count, 1, MPI_INT, right, rank, 1, MPI_INT, wins[t]);
        MPI_Win_fence(0, wins[t]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "bug_mt_rma_conflict: needs MPI_THREAD_MULTIPLE\n");
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
    for (int t = 0; t < THREADS; t++) {
        MPI_Win_free(&wins[t]);
        free(slots[t]);
    }
    MPI_Finalize();
    return 0;
}
