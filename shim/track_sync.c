/*
 * The program's synchronisation objects on watched pages.
 *
 * A thread that waits on a mutex, condition variable, barrier or
 * semaphore sleeps in futex(2), and the kernel reads the futex word
 * itself: on a page the tracker protects it answers EFAULT instead of
 * faulting, and glibc ends the process ("The futex facility returned an
 * unexpected error code"). Threaded programs keep such objects next to
 * their buffers (a static pthread_barrier_t beside the halo arrays). So
 * the calls that may sleep or wake are wrapped: a watched page under the
 * object is left open until its ranges end, like a page the library
 * keeps touching (track_fault.c), before the call goes on. Accesses to
 * that page are then not seen; the program never dies of it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>

#include "shim.h"
#include "track_int.h"

static void open_pages(const void *obj, size_t len)
{
    if (!mpidbg_track_on || !obj)
        return;
    uint64_t lo = (uint64_t)(uintptr_t)obj & TR_PMASK, hi = ((uint64_t)(uintptr_t)obj + len + TR_PAGE - 1) & TR_PMASK;
    for (uint64_t a = lo; a < hi; a += TR_PAGE) {
        struct tr_page *p = tr_page_find(a);
        if (!p || !tr_page_busy(p) || __atomic_exchange_n(&p->lost, 1, __ATOMIC_RELAXED))
            continue;
        tr_stat(MPIDBG_TRS_LOST_PAGES);
        tr_apply(a, a + TR_PAGE, 1);
    }
}

/* real looks up the next definition of name once. */
#define REAL(type, name)                                                    \
    static type real_##name;                                                \
    type r_##name = __atomic_load_n(&real_##name, __ATOMIC_ACQUIRE);        \
    if (!r_##name) {                                                        \
        r_##name = (type)dlsym(RTLD_NEXT, #name);                           \
        __atomic_store_n(&real_##name, r_##name, __ATOMIC_RELEASE);         \
    }

typedef int (*fn1)(void *);
typedef int (*fn2)(void *, void *);
typedef int (*fn3)(void *, void *, const void *);

int pthread_mutex_lock(pthread_mutex_t *m)
{
    REAL(fn1, pthread_mutex_lock);
    if (!r_pthread_mutex_lock)
        return ENOSYS;
    open_pages(m, sizeof *m);
    return r_pthread_mutex_lock(m);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
    REAL(fn1, pthread_mutex_unlock);
    if (!r_pthread_mutex_unlock)
        return ENOSYS;
    open_pages(m, sizeof *m);
    return r_pthread_mutex_unlock(m);
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    REAL(fn2, pthread_cond_wait);
    if (!r_pthread_cond_wait)
        return ENOSYS;
    open_pages(c, sizeof *c);
    open_pages(m, sizeof *m);
    return r_pthread_cond_wait(c, m);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
    REAL(fn3, pthread_cond_timedwait);
    if (!r_pthread_cond_timedwait)
        return ENOSYS;
    open_pages(c, sizeof *c);
    open_pages(m, sizeof *m);
    return r_pthread_cond_timedwait(c, m, t);
}

int pthread_cond_signal(pthread_cond_t *c)
{
    REAL(fn1, pthread_cond_signal);
    if (!r_pthread_cond_signal)
        return ENOSYS;
    open_pages(c, sizeof *c);
    return r_pthread_cond_signal(c);
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
    REAL(fn1, pthread_cond_broadcast);
    if (!r_pthread_cond_broadcast)
        return ENOSYS;
    open_pages(c, sizeof *c);
    return r_pthread_cond_broadcast(c);
}

int pthread_barrier_wait(pthread_barrier_t *b)
{
    REAL(fn1, pthread_barrier_wait);
    if (!r_pthread_barrier_wait)
        return ENOSYS;
    open_pages(b, sizeof *b);
    return r_pthread_barrier_wait(b);
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
    REAL(fn1, pthread_rwlock_rdlock);
    if (!r_pthread_rwlock_rdlock)
        return ENOSYS;
    open_pages(l, sizeof *l);
    return r_pthread_rwlock_rdlock(l);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
    REAL(fn1, pthread_rwlock_wrlock);
    if (!r_pthread_rwlock_wrlock)
        return ENOSYS;
    open_pages(l, sizeof *l);
    return r_pthread_rwlock_wrlock(l);
}

int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
    REAL(fn1, pthread_rwlock_unlock);
    if (!r_pthread_rwlock_unlock)
        return ENOSYS;
    open_pages(l, sizeof *l);
    return r_pthread_rwlock_unlock(l);
}

int sem_wait(sem_t *s)
{
    REAL(fn1, sem_wait);
    if (!r_sem_wait) {
        errno = ENOSYS;
        return -1;
    }
    open_pages(s, sizeof *s);
    return r_sem_wait(s);
}

int sem_timedwait(sem_t *s, const struct timespec *t)
{
    REAL(fn2, sem_timedwait);
    if (!r_sem_timedwait) {
        errno = ENOSYS;
        return -1;
    }
    open_pages(s, sizeof *s);
    return r_sem_timedwait(s, (void *)t);
}

int sem_post(sem_t *s)
{
    REAL(fn1, sem_post);
    if (!r_sem_post) {
        errno = ENOSYS;
        return -1;
    }
    open_pages(s, sizeof *s);
    return r_sem_post(s);
}
