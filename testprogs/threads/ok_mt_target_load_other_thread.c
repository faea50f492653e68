// ranks: 2
// cflags: -pthread
// runs: 10
//
// ok_mt_target_load_other_thread.c: the correct twin of
// bug_mt_target_load_other_thread.c. The doorbell thread posts a
// semaphore after it received the ring, and the worker waits on it
// before it reads the mailbox: rank 0's put, flushed before the ring was
// sent, is ordered before the worker's loads (MPI-4.1 §12.7; §3.5).
// Expected: no findings.
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAILBOX = 4, RING = 11, THREADS = 4, SCRATCH = 1 << 16 };

static int *mailbox;
static int job[MAILBOX];
static char scratch[2][SCRATCH];
static sem_t rung;

static void *doorbell(void *arg)
{
    (void)arg;
    int ring;
    MPI_Recv(&ring, 1, MPI_INT, 0, RING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sem_post(&rung);
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    while (sem_wait(&rung) != 0)
        ;
    for (int i = 0; i < MAILBOX; i++)
        job[i] = ((volatile int *)mailbox)[i];
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
        fprintf(stderr, "ok_mt_target_load_other_thread: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    sem_init(&rung, 0, 0);
    void *page; /* the mailbox has a page of its own, as a device's would */
    if (posix_memalign(&page, 4096, 4096))
        MPI_Abort(MPI_COMM_WORLD, 2);
    mailbox = page;
    memset(mailbox, 0, MAILBOX * sizeof(int));
    MPI_Win_create(mailbox, MAILBOX * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        int desc[MAILBOX] = {7, 1024, 3, 42}, ring = 1;
        MPI_Put(desc, MAILBOX, MPI_INT, 1, 0, MAILBOX, MPI_INT, win);
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
        if (job[0] == 7 && job[1] == 1024 && job[2] == 3 && job[3] == 42)
            printf("ok_mt_target_load_other_thread: OK\n");
        else
            printf("ok_mt_target_load_other_thread: job %d %d %d %d\n", job[0], job[1], job[2], job[3]);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(page);
    MPI_Finalize();
    return 0;
}
