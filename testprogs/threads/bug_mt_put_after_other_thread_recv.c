// ranks: 3
// cflags: -pthread
//
// bug_mt_put_after_other_thread_recv.c: a two-stage update of a shared
// counter table on rank 2 (every rank in MPI_Win_lock_all). Rank 0 writes
// the stage-1 value of entry 5 (MPI_Put + MPI_Win_flush) and then tells
// rank 1 it is done (MPI_Send). Rank 1 runs 4 threads
// (MPI_THREAD_MULTIPLE): the listener thread receives rank 0's "done";
// the writer thread is meant to write the stage-2 value of entry 5 after
// that, but waits a fixed 100 ms instead of waiting for the listener;
// two more threads prepare the other entries. On a quiet machine the
// listener has the message long before the writer wakes, but nothing
// orders the writer's MPI_Put after rank 0's: the writer never
// synchronised with the listener, and on a busy node rank 0's put may
// still be in flight.
// Breaks MPI-4.1 §12.7: concurrent conflicting accesses to the same
// window location are erroneous; §3.5: calls of different threads are
// concurrent unless the program orders them.
// Expected: rma-conflict at rank 0's MPI_Put (rank 1's is the related
// place). A
// checker that lets one thread's receive order another thread's later
// calls misses it.
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

enum { ENTRIES = 8, DONE_TAG = 3, THREADS = 4 };

static MPI_Win win;
static int prepared[ENTRIES];

static void *listener(void *arg)
{
    (void)arg;
    int done;
    MPI_Recv(&done, 1, MPI_INT, 0, DONE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    struct timespec wait = {0, 100000000};
    nanosleep(&wait, NULL);
    int stage2 = 200;
    MPI_Put(&stage2, 1, MPI_INT, 2, 5, 1, MPI_INT, win); // related "rma-conflict"
    MPI_Win_flush(2, win);
    return NULL;
}

static void *preparer(void *arg)
{
    int t = (int)(long)arg;
    for (int e = t; e < ENTRIES; e += 2)
        prepared[e] = e * e;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 3) {
        fprintf(stderr, "bug_mt_put_after_other_thread_recv: needs MPI_THREAD_MULTIPLE and 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int table[ENTRIES] = {0};
    MPI_Win_create(table, sizeof table, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        int stage1 = 100, done = 1;
        MPI_Put(&stage1, 1, MPI_INT, 2, 5, 1, MPI_INT, win); // want "rma-conflict"
        MPI_Win_flush(2, win);
        MPI_Send(&done, 1, MPI_INT, 1, DONE_TAG, MPI_COMM_WORLD);
    } else if (rank == 1) {
        pthread_t th[THREADS];
        pthread_create(&th[0], NULL, listener, NULL);
        pthread_create(&th[1], NULL, writer, NULL);
        pthread_create(&th[2], NULL, preparer, (void *)0L);
        pthread_create(&th[3], NULL, preparer, (void *)1L);
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
