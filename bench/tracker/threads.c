/* What a thread's life and a signal-mask change cost under the tracker
 * (shim/track_thread_end.c, shim/track_sigmask.c; docs/races.md, "Never
 * fatal"), in one MPI process. Not part of `make bench`:
 *
 *     mpicc.mpich -O2 -pthread -o /tmp/threads bench/tracker/threads.c
 *     /tmp/threads                                      natively
 *     bin/mpidbg run -n 1 /tmp/threads                  under mpidbg
 *
 * Each line is the median over 21 batches of the wall time of one
 * operation, in two states of the tracker:
 *   idle     nothing pending
 *   pending  8 receives pending, each on a heap page of its own: every
 *            thread end opens their pages and protects them again
 * The operations: pthread_create and pthread_join of a thread that does
 * nothing; the same for a detached thread, awaited through a counter;
 * pthread_sigmask blocking and restoring SIGUSR1, and every signal.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "measure.h"

enum { BATCHES = 21, PENDING = 8, PAGE = 4096 };

static int finished;

static double now(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

static void *nothing(void *arg)
{
    (void)arg;
    return NULL;
}

static void *counted(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void join_one(void)
{
    pthread_t t;
    pthread_create(&t, NULL, nothing, NULL);
    pthread_join(t, NULL);
}

static void detach_one(void)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int want = __atomic_load_n(&finished, __ATOMIC_ACQUIRE) + 1;
    pthread_t t;
    pthread_create(&t, &a, counted, NULL);
    pthread_attr_destroy(&a);
    while (__atomic_load_n(&finished, __ATOMIC_ACQUIRE) < want)
        sched_yield();
}

static void mask_one(void)
{
    sigset_t s, old;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &s, &old);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void mask_all(void)
{
    sigset_t s, old;
    sigfillset(&s);
    pthread_sigmask(SIG_BLOCK, &s, &old);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static double measure(void (*op)(void), int per)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < per; i++)
            op();
        t[b] = (now() - t0) / per;
    }
    return median_of(t, BATCHES);
}

static void table(const char *state)
{
    printf("%-8s create+join %8.0f ns   detached %8.0f ns   mask %6.0f ns   mask all %6.0f ns\n", state,
           measure(join_one, 200), measure(detach_one, 200), measure(mask_one, 20000), measure(mask_all, 20000));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    table("idle");
    char *pages;
    if (posix_memalign((void **)&pages, PAGE, PENDING * PAGE))
        return 1;
    MPI_Request r[PENDING];
    for (int i = 0; i < PENDING; i++)
        MPI_Irecv(pages + i * PAGE, 64, MPI_CHAR, 0, i, MPI_COMM_SELF, &r[i]);
    table("pending");
    char out[64] = {0};
    for (int i = 0; i < PENDING; i++)
        MPI_Send(out, 64, MPI_CHAR, 0, i, MPI_COMM_SELF);
    MPI_Status st[PENDING];
    MPI_Waitall(PENDING, r, st);
    free(pages);
    MPI_Finalize();
    return 0;
}
