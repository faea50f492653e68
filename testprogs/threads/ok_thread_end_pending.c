// ranks: 2
// cflags: -pthread
//
// ok_thread_end_pending.c: a task farm that starts a thread per task.
// Each rank starts a batch of detached workers; after starting each one
// it allocates the worker's result record on the heap and posts
// MPI_Irecv on MPI_COMM_SELF into it. The workers meet at a barrier,
// send their results (MPI_THREAD_MULTIPLE) and end while the rank
// computes its own part; only then does it complete the receives with
// MPI_Waitall. A second batch runs joined workers, one of which leaves
// by pthread_exit, beside a sleeping thread that is cancelled.
// Follows MPI-4.1 §3.7.2 (no record is read before MPI_Waitall) and
// §12.4 (MPI_THREAD_MULTIPLE).
// Correct: must produce no findings, and must not die. glibc runs a
// thread's last code with every signal blocked: a detached thread that
// ends hands its stack to a cache, and past the cache's 40 MiB frees an
// older stack's thread-local storage, whose vector glibc allocated on the
// heap when that thread was created, right before its worker's record.
// A fault on a watched page there would end the process.
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { DETACHED = 16, JOINED = 12, W = 16 };

struct record {
    double v[W];
};

static pthread_barrier_t start_line;
static int sent;

static void send_result(int task)
{
    double out[W];
    for (int i = 0; i < W; i++)
        out[i] = task * 100.0 + i;
    MPI_Send(out, W, MPI_DOUBLE, 0, task, MPI_COMM_SELF);
}

static void *detached_worker(void *arg)
{
    pthread_barrier_wait(&start_line);
    send_result((int)(long)arg);
    __atomic_add_fetch(&sent, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *joined_worker(void *arg)
{
    int task = (int)(long)arg;
    send_result(task);
    if (task % 4 == 1)
        pthread_exit(NULL);
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    for (;;)
        sleep(1); /* a cancellation point */
    return NULL;
}

/* the rank's own part, while its workers end */
static double own_part(int rank)
{
    double s = 0;
    for (int k = 0; k < 50; k++) {
        for (int i = 1; i < 20000; i++)
            s += (rank + 1.0) / i;
        usleep(1000);
    }
    return s;
}

static int check(struct record **rec, int first, int n)
{
    int ok = 1;
    for (int t = first; t < first + n; t++) {
        if (rec[t]->v[W - 1] != t * 100.0 + W - 1)
            ok = 0;
        free(rec[t]);
    }
    return ok;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    struct record *rec[DETACHED + JOINED];
    MPI_Request reqs[DETACHED + JOINED];
    MPI_Status st[DETACHED + JOINED];

    pthread_barrier_init(&start_line, NULL, DETACHED + 1);
    for (int t = 0; t < DETACHED; t++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_t th;
        if (pthread_create(&th, &attr, detached_worker, (void *)(long)t) != 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        pthread_attr_destroy(&attr);
        rec[t] = malloc(sizeof *rec[t]);
        MPI_Irecv(rec[t]->v, W, MPI_DOUBLE, 0, t, MPI_COMM_SELF, &reqs[t]);
    }
    pthread_barrier_wait(&start_line);
    double mine = own_part(rank);
    while (__atomic_load_n(&sent, __ATOMIC_ACQUIRE) < DETACHED)
        sched_yield();
    MPI_Waitall(DETACHED, reqs, st);
    int ok = check(rec, 0, DETACHED);

    pthread_t s;
    pthread_create(&s, NULL, sleeper, NULL);
    for (int t = DETACHED; t < DETACHED + JOINED; t++) {
        rec[t] = malloc(sizeof *rec[t]);
        MPI_Irecv(rec[t]->v, W, MPI_DOUBLE, 0, t, MPI_COMM_SELF, &reqs[t]);
    }
    for (int t = DETACHED; t < DETACHED + JOINED; t++) {
        pthread_t th;
        pthread_create(&th, NULL, joined_worker, (void *)(long)t);
        pthread_join(th, NULL);
    }
    pthread_cancel(s);
    pthread_join(s, NULL);
    MPI_Waitall(JOINED, reqs + DETACHED, st);
    ok &= check(rec, DETACHED, JOINED) && mine > 0;

    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    pthread_barrier_destroy(&start_line);
    MPI_Finalize();
    if (!all_ok)
        return 1;
    if (rank == 0)
        printf("ok_thread_end_pending: OK\n");
    return 0;
}
