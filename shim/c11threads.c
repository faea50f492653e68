/*
 * C11 threads (<threads.h>): not followed by the thread clocks.
 *
 * glibc implements thrd_create, mtx_lock, cnd_wait and the rest on its
 * internal pthread functions, which the shim's pthread wrappers do not
 * see: a program that synchronises its threads with them would look
 * unsynchronised, and its correct one-sided calls would be reported.
 * So the first such call turns the thread clocks off (tclock.h), and
 * threads are ordered by time, as without them. Their ends are followed,
 * as the program's pthreads' are (track_thread_end.c).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <threads.h>

#include "shim.h"

static void *next(void **cache, const char *name)
{
    mpidbg_tc_give_up("C11 threads");
    return mpidbg_next_symbol(cache, name);
}

/* A thread's end holds the watched pages open until it is gone, as for
 * the program's pthreads (threads.c, track_thread_end.c). */
struct start {
    thrd_start_t fn;
    void *arg;
    int sigs; /* the creator's asked mask (mpidbg_sig_asked) */
};

static void ends(void *unused)
{
    (void)unused;
    mpidbg_track_thread_ends();
}

static int trampoline(void *p)
{
    struct start s = *(struct start *)p;
    free(p);
    mpidbg_sig_thread_start(s.sigs);
    int rv;
    pthread_cleanup_push(ends, NULL);
    rv = s.fn(s.arg);
    pthread_cleanup_pop(1);
    return rv;
}

int thrd_create(thrd_t *t, thrd_start_t fn, void *arg)
{
    static void *cache;
    int (*f)(thrd_t *, thrd_start_t, void *) = (int (*)(thrd_t *, thrd_start_t, void *))next(&cache, "thrd_create");
    if (!f)
        return thrd_error;
    struct start *s = malloc(sizeof *s);
    if (!s)
        return f(t, fn, arg);
    s->fn = fn;
    s->arg = arg;
    s->sigs = mpidbg_sig_asked();
    int rc = f(t, trampoline, s);
    if (rc != thrd_success)
        free(s);
    return rc;
}

int thrd_join(thrd_t t, int *res)
{
    static void *cache;
    int (*f)(thrd_t, int *) = (int (*)(thrd_t, int *))mpidbg_next_symbol(&cache, "thrd_join");
    if (!f)
        return thrd_error;
    int rc = f(t, res);
    if (rc == thrd_success)
        mpidbg_track_joined((pthread_t)t);
    return rc;
}

/* The objects' pages are never protected from their first call on, as
 * for pthread objects (track_sync.c): glibc sleeps on them in futex(2),
 * which answers EFAULT on a protected page, and glibc then aborts. */
int mtx_lock(mtx_t *m)
{
    static void *cache;
    int (*f)(mtx_t *) = (int (*)(mtx_t *))next(&cache, "mtx_lock");
    mpidbg_track_sync_object(m, sizeof *m);
    return f ? f(m) : thrd_error;
}

int mtx_trylock(mtx_t *m)
{
    static void *cache;
    int (*f)(mtx_t *) = (int (*)(mtx_t *))next(&cache, "mtx_trylock");
    mpidbg_track_sync_object(m, sizeof *m);
    return f ? f(m) : thrd_error;
}

int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
    static void *cache;
    int (*f)(mtx_t *, const struct timespec *) =
        (int (*)(mtx_t *, const struct timespec *))next(&cache, "mtx_timedlock");
    mpidbg_track_sync_object(m, sizeof *m);
    return f ? f(m, ts) : thrd_error;
}

int mtx_unlock(mtx_t *m)
{
    static void *cache;
    int (*f)(mtx_t *) = (int (*)(mtx_t *))next(&cache, "mtx_unlock");
    mpidbg_track_sync_object(m, sizeof *m);
    return f ? f(m) : thrd_error;
}

int cnd_wait(cnd_t *c, mtx_t *m)
{
    static void *cache;
    int (*f)(cnd_t *, mtx_t *) = (int (*)(cnd_t *, mtx_t *))next(&cache, "cnd_wait");
    mpidbg_track_sync_object(c, sizeof *c);
    mpidbg_track_sync_object(m, sizeof *m);
    return f ? f(c, m) : thrd_error;
}

int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict ts)
{
    static void *cache;
    int (*f)(cnd_t *, mtx_t *, const struct timespec *) =
        (int (*)(cnd_t *, mtx_t *, const struct timespec *))next(&cache, "cnd_timedwait");
    mpidbg_track_sync_object(c, sizeof *c);
    mpidbg_track_sync_object(m, sizeof *m);
    return f ? f(c, m, ts) : thrd_error;
}

int cnd_signal(cnd_t *c)
{
    static void *cache;
    int (*f)(cnd_t *) = (int (*)(cnd_t *))next(&cache, "cnd_signal");
    mpidbg_track_sync_object(c, sizeof *c);
    return f ? f(c) : thrd_error;
}

int cnd_broadcast(cnd_t *c)
{
    static void *cache;
    int (*f)(cnd_t *) = (int (*)(cnd_t *))next(&cache, "cnd_broadcast");
    mpidbg_track_sync_object(c, sizeof *c);
    return f ? f(c) : thrd_error;
}
