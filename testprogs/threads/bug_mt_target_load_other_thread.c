// ranks: 2
// cflags: -pthread
//
// bug_mt_target_load_other_thread.c: a mailbox in window memory. Rank 0
// deposits a job descriptor into rank 1's mailbox (MPI_Put + MPI_Win_flush
// under MPI_Win_lock_all) and then rings rank 1's doorbell (MPI_Send).
// Rank 1 runs 4 threads (MPI_THREAD_MULTIPLE): the doorbell thread
// receives the ring; the worker thread, meant to read the mailbox after
// the ring, polls on a timer instead (100 ms) and reads the descriptor
// with plain loads; two more threads clear scratch space. The worker
// never synchronised with the doorbell thread, so nothing orders its
// loads after rank 0's put.
// Breaks MPI-4.1 §12.7: a local load of window memory concurrent with a
// put to it is erroneous; §3.5: calls of different threads are concurrent
// unless the program orders them.
// Expected: rma-target-race at the worker's load (rank 0's MPI_Put is
// the related place). A checker that lets one thread's receive order
// another thread's later loads misses it.
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAILBOX = 4, RING = 11, THREADS = 4, SCRATCH = 1 << 16 };

static int *mailbox;
static int job[MAILBOX];
static char scratch[2][SCRATCH];

static void *doorbell(void *arg)
{
    (void)arg;
    int ring;
    MPI_Recv(&ring, 1, MPI_INT, 0, RING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    struct timespec poll = {0, 100000000};
    nanosleep(&poll, NULL);
    for (int i = 0; i < MAILBOX; i++)
        job[i] = ((volatile int *)mailbox)[i]; // want "rma-target-race"
    return NULL;
}

static void *cleaner(void *arg)
{
    int t = (int)(long)arg;
    memset(scratch[t], 0, SCRATCH);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_target_load_other_thread: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    void *page; /* the mailbox has a page of its own, as a device's would */
    if (posix_memalign(&page, 4096, 4096))
        MPI_Abort(MPI_COMM_WORLD, 2);
    mailbox = page;
    memset(mailbox, 0, MAILBOX * sizeof(int));
    MPI_Win_create(mailbox, MAILBOX * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        int desc[MAILBOX] = {7, 1024, 3, 42}, ring = 1;
        MPI_Put(desc, MAILBOX, MPI_INT, 1, 0, MAILBOX, MPI_INT, win); // related "rma-target-race"
        MPI_Win_flush(1, win);
        MPI_Send(&ring, 1, MPI_INT, 1, RING, MPI_COMM_WORLD);
    } else {
        pthread_t th[THREADS];
        pthread_create(&th[0], NULL, doorbell, NULL);
        pthread_create(&th[1], NULL, worker, NULL);
        pthread_create(&th[2], NULL, cleaner, (void *)0L);
        pthread_create(&th[3], NULL, cleaner, (void *)1L);
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(page);
    MPI_Finalize();
    return 0;
}
