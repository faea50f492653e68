// ranks: 3
// cflags: -pthread
// runs: 10
//
// ok_mt_put_after_other_thread_recv.c: the correct twin of
// bug_mt_put_after_other_thread_recv.c. The writer thread of rank 1 waits
// for the listener (a mutex and a condition variable) before it writes
// the stage-2 value: rank 0's put, flushed before its MPI_Send, is
// complete at rank 2 before the listener's receive returns, and the
// writer's MPI_Put comes after that receive (MPI-4.1 §12.7; §3.5).
// Rank 2 checks the final value.
// Expected: no findings.
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { ENTRIES = 8, DONE_TAG = 3, THREADS = 4 };

static MPI_Win win;
static int prepared[ENTRIES];

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t heard = PTHREAD_COND_INITIALIZER;
static int stage1_done;

static void *listener(void *arg)
{
    (void)arg;
    int done;
    MPI_Recv(&done, 1, MPI_INT, 0, DONE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    pthread_mutex_lock(&mu);
    stage1_done = done;
    pthread_cond_signal(&heard);
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!stage1_done)
        pthread_cond_wait(&heard, &mu);
    pthread_mutex_unlock(&mu);
    int stage2 = 200;
    MPI_Put(&stage2, 1, MPI_INT, 2, 5, 1, MPI_INT, win);
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
        fprintf(stderr, "ok_mt_put_after_other_thread_recv: needs MPI_THREAD_MULTIPLE and 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int table[ENTRIES] = {0};
    MPI_Win_create(table, sizeof table, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        int stage1 = 100, done = 1;
        MPI_Put(&stage1, 1, MPI_INT, 2, 5, 1, MPI_INT, win);
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
    if (rank == 2) {
        if (table[5] == 200)
            printf("ok_mt_put_after_other_thread_recv: OK\n");
        else
            printf("ok_mt_put_after_other_thread_recv: entry 5 is %d, want 200\n", table[5]);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
