/*
 * C11 threads (<threads.h>): not followed by the thread clocks.
 *
 * glibc implements thrd_create, mtx_lock, cnd_wait and the rest on its
 * internal pthread functions, which the shim's pthread wrappers do not
 * see: a program that synchronises its threads with them would look
 * unsynchronised, and its correct one-sided calls would be reported.
 * So the first such call turns the thread clocks off (tclock.h), and
 * threads are ordered by time, as without them.
 */
#define _GNU_SOURCE
#include <threads.h>

#include "shim.h"

static void *next(void **cache, const char *name)
{
    mpidbg_tc_give_up("C11 threads");
    return mpidbg_next_symbol(cache, name);
}

int thrd_create(thrd_t *t, thrd_start_t fn, void *arg)
{
    static void *cache;
    int (*f)(thrd_t *, thrd_start_t, void *) = (int (*)(thrd_t *, thrd_start_t, void *))next(&cache, "thrd_create");
    return f ? f(t, fn, arg) : thrd_error;
}

int mtx_lock(mtx_t *m)
{
    static void *cache;
    int (*f)(mtx_t *) = (int (*)(mtx_t *))next(&cache, "mtx_lock");
    return f ? f(m) : thrd_error;
}

int mtx_trylock(mtx_t *m)
{
    static void *cache;
    int (*f)(mtx_t *) = (int (*)(mtx_t *))next(&cache, "mtx_trylock");
    return f ? f(m) : thrd_error;
}

int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
    static void *cache;
    int (*f)(mtx_t *, const struct timespec *) =
        (int (*)(mtx_t *, const struct timespec *))next(&cache, "mtx_timedlock");
    return f ? f(m, ts) : thrd_error;
}

int cnd_wait(cnd_t *c, mtx_t *m)
{
    static void *cache;
    int (*f)(cnd_t *, mtx_t *) = (int (*)(cnd_t *, mtx_t *))next(&cache, "cnd_wait");
    return f ? f(c, m) : thrd_error;
}
