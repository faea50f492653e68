// ranks: 3
// cflags: -pthread
// runs: 10
//
// ok_mt_first_answer_ordered.c: the correct twin of
// bug_mt_first_answer_race.c. The dispatcher waits until the collector
// has filed the first answer (a mutex and a condition variable) before
// it hands rank 2 the second half: rank 2's result is sent after the
// first receive completed, so only rank 1's can match it (MPI-4.1 §3.5:
// the program orders the two threads' calls).
// Expected: no findings.
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { RESULT = 7, WORK = 9, N = 4096, THREADS = 4 };

static int table[N];
static int answer = -1, fallback = -1;
static long stats[THREADS];

static int search(int lo, int hi, int key)
{
    for (int i = lo; i < hi; i++)
        if (table[i] == key)
            return i;
    return -1;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t filed = PTHREAD_COND_INITIALIZER;
static int have_answer;

static void *collector(void *arg)
{
    (void)arg;
    MPI_Status st;
    MPI_Recv(&answer, 1, MPI_INT, MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, &st);
    pthread_mutex_lock(&mu);
    have_answer = 1;
    pthread_cond_signal(&filed);
    pthread_mutex_unlock(&mu);
    MPI_Recv(&fallback, 1, MPI_INT, MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, &st);
    return NULL;
}

static void *dispatcher(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!have_answer)
        pthread_cond_wait(&filed, &mu);
    pthread_mutex_unlock(&mu);
    int range[2] = {N / 2, N};
    MPI_Send(range, 2, MPI_INT, 2, WORK, MPI_COMM_WORLD);
    return NULL;
}

static void *statistician(void *arg)
{
    int t = (int)(long)arg;
    for (int i = t; i < N; i += THREADS)
        stats[t] += table[i] % 7 == 0;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 3) {
        fprintf(stderr, "ok_mt_first_answer_ordered: needs MPI_THREAD_MULTIPLE and 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < N; i++)
        table[i] = (i * 7919) % 1000;
    int key = 421;
    if (rank == 0) {
        pthread_t th[THREADS];
        pthread_create(&th[0], NULL, collector, NULL);
        pthread_create(&th[1], NULL, dispatcher, NULL);
        pthread_create(&th[2], NULL, statistician, (void *)2L);
        pthread_create(&th[3], NULL, statistician, (void *)3L);
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
        if (answer < 0 || answer >= 2048 || fallback < 2048 || stats[2] + stats[3] == 0)
            printf("ok_mt_first_answer_ordered: answer %d fallback %d\n", answer, fallback);
        else
            printf("ok_mt_first_answer_ordered: OK\n");
    } else if (rank == 1) {
        int at = search(0, N / 2, key);
        MPI_Send(&at, 1, MPI_INT, 0, RESULT, MPI_COMM_WORLD);
    } else {
        int range[2];
        MPI_Recv(range, 2, MPI_INT, 0, WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int at = search(range[0], range[1], key);
        MPI_Send(&at, 1, MPI_INT, 0, RESULT, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
