/*
 * The program's synchronisation objects on watched pages.
 *
 * A thread that waits on a mutex, condition variable, barrier or
 * semaphore sleeps in futex(2), and the kernel reads the futex word
 * itself: on a page the tracker protects it answers EFAULT instead of
 * faulting, and glibc ends the process ("The futex facility returned an
 * unexpected error code"). Threaded programs keep such objects next to
 * their buffers (a static pthread_barrier_t beside the halo arrays). So
 * the calls that may sleep or wake are wrapped, and the pages under the
 * objects they name are never protected from then on (a set of up to
 * SYNC_PAGES pages; tr_page_want asks it): glibc waits again inside
 * those calls, after a signal or a spurious wake, without coming back
 * through the wrapper. A page watched when the object is first seen is
 * opened at once. Accesses to those pages are not seen; the program
 * never dies of it. Past SYNC_PAGES such pages, a watched one is left
 * open only until its ranges end, like a page the library keeps
 * touching (track_fault.c).
 *
 * The same calls are the program's synchronisation between its threads,
 * which the thread clocks follow (tclock.h): a lock, a post, a signal or
 * a barrier arrival releases the caller's clock into the object, a lock
 * taken, a wait ended or a barrier passed acquires it.
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

#define SYNC_PAGES 4096
static uint64_t sync_pages[SYNC_PAGES]; /* open addressing; 0 empty */

static uint64_t sync_hash(uint64_t page)
{
    return (page >> 12) * 0x9e3779b97f4a7c15ull >> 52; /* 12 bits: SYNC_PAGES */
}

int tr_sync_page(uint64_t page)
{
    uint64_t h = sync_hash(page);
    for (uint64_t i = 0; i < 16; i++) {
        uint64_t k = __atomic_load_n(&sync_pages[(h + i) % SYNC_PAGES], __ATOMIC_ACQUIRE);
        if (k == page)
            return 1;
        if (!k)
            return 0;
    }
    return 0;
}

/* sync_add puts page into the set: 1 when it is there, 0 when full. */
static int sync_add(uint64_t page)
{
    uint64_t h = sync_hash(page);
    for (uint64_t i = 0; i < 16; i++) {
        uint64_t *slot = &sync_pages[(h + i) % SYNC_PAGES], k = 0;
        if (__atomic_compare_exchange_n(slot, &k, page, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) || k == page)
            return 1;
    }
    return 0;
}

void mpidbg_track_sync_object(const void *obj, size_t len)
{
    if (!mpidbg_track_on || !obj)
        return;
    uint64_t lo = (uint64_t)(uintptr_t)obj & TR_PMASK, hi = ((uint64_t)(uintptr_t)obj + len + TR_PAGE - 1) & TR_PMASK;
    for (uint64_t a = lo; a < hi; a += TR_PAGE) {
        if (tr_sync_page(a))
            continue; /* known: never protected */
        int kept = sync_add(a);
        struct tr_page *p = tr_page_find(a);
        if (!p || !tr_page_busy(p))
            continue;
        if (!kept && __atomic_exchange_n(&p->lost, 1, __ATOMIC_RELAXED))
            continue;
        tr_stat(MPIDBG_TRS_LOST_PAGES);
        tr_apply(a, a + TR_PAGE, 1);
        tr_unseen(a, a + TR_PAGE);
    }
}

/* The next definitions of the wrapped functions, looked up when the
 * shim is loaded (not in a signal handler: sem_post may be called from
 * one), or at the first call when another library's constructor comes
 * first. */
typedef int (*fn1)(void *);
typedef int (*fn2)(void *, void *);
typedef int (*fn3)(void *, void *, const void *);

static fn1 real_pthread_mutex_lock, real_pthread_mutex_unlock, real_pthread_cond_signal, real_pthread_cond_broadcast,
    real_pthread_barrier_wait, real_pthread_rwlock_rdlock, real_pthread_rwlock_wrlock, real_pthread_rwlock_unlock,
    real_sem_wait, real_sem_post, real_pthread_mutex_trylock, real_pthread_rwlock_tryrdlock,
    real_pthread_rwlock_trywrlock, real_sem_trywait, real_pthread_spin_lock, real_pthread_spin_trylock,
    real_pthread_spin_unlock;
typedef int (*fnclock2)(void *, clockid_t, const void *);
typedef int (*fnclock3)(void *, void *, clockid_t, const void *);

static fn2 real_pthread_cond_wait, real_sem_timedwait, real_pthread_mutex_timedlock;
static fn3 real_pthread_cond_timedwait;
static fnclock2 real_pthread_mutex_clocklock, real_sem_clockwait;
static fnclock3 real_pthread_cond_clockwait;
static fn2 real_pthread_rwlock_timedrdlock, real_pthread_rwlock_timedwrlock;
static fnclock2 real_pthread_rwlock_clockrdlock, real_pthread_rwlock_clockwrlock;

#define LOOKUP(name) __atomic_store_n(&real_##name, (typeof(real_##name))dlsym(RTLD_NEXT, #name), __ATOMIC_RELEASE)

__attribute__((constructor)) static void resolve(void)
{
    LOOKUP(pthread_mutex_lock);
    LOOKUP(pthread_mutex_unlock);
    LOOKUP(pthread_cond_signal);
    LOOKUP(pthread_cond_broadcast);
    LOOKUP(pthread_barrier_wait);
    LOOKUP(pthread_rwlock_rdlock);
    LOOKUP(pthread_rwlock_wrlock);
    LOOKUP(pthread_rwlock_unlock);
    LOOKUP(sem_wait);
    LOOKUP(sem_post);
    LOOKUP(pthread_cond_wait);
    LOOKUP(sem_timedwait);
    LOOKUP(pthread_cond_timedwait);
    LOOKUP(pthread_mutex_timedlock);
    LOOKUP(pthread_mutex_clocklock);
    LOOKUP(sem_clockwait);
    LOOKUP(pthread_cond_clockwait);
    LOOKUP(pthread_mutex_trylock);
    LOOKUP(pthread_rwlock_tryrdlock);
    LOOKUP(pthread_rwlock_trywrlock);
    LOOKUP(sem_trywait);
    LOOKUP(pthread_spin_lock);
    LOOKUP(pthread_spin_trylock);
    LOOKUP(pthread_spin_unlock);
    LOOKUP(pthread_rwlock_timedrdlock);
    LOOKUP(pthread_rwlock_timedwrlock);
    LOOKUP(pthread_rwlock_clockrdlock);
    LOOKUP(pthread_rwlock_clockwrlock);
}

#define REAL(type, name)                                                 \
    type r_##name = __atomic_load_n(&real_##name, __ATOMIC_ACQUIRE);     \
    if (!r_##name) {                                                     \
        resolve();                                                       \
        r_##name = __atomic_load_n(&real_##name, __ATOMIC_ACQUIRE);      \
    }

/* The thread-clock edges (tclock.h): only the program's own calls, known
 * by the wrapper's return address. */
static void edge_release(const void *obj, const void *ra)
{
    if (mpidbg_tc_edge_from(ra))
        mpidbg_tc_release(obj);
}

static void edge_acquire(const void *obj, const void *ra)
{
    if (mpidbg_tc_edge_from(ra))
        mpidbg_tc_acquire(obj);
}

/* acquired: a lock or wait call returned rc (0 or -1 with errno for
 * semaphores): on success the caller has what the object's last
 * releaser knew. */
static int edge_acquired(const void *obj, int rc, const void *ra)
{
    if (rc == 0 || rc == EOWNERDEAD) /* a robust mutex whose owner died is held all the same */
        edge_acquire(obj, ra);
    return rc;
}

/* woken: a condition wait returned with the mutex held again, whatever
 * rc says; a signal came (or a timeout: learning more only orders
 * more). */
static int edge_woken(const void *c, const void *m, int rc, const void *ra)
{
    edge_acquire(m, ra);
    edge_acquire(c, ra);
    return rc;
}

#define release(obj) edge_release(obj, __builtin_return_address(0))
#define acquire(obj) edge_acquire(obj, __builtin_return_address(0))
#define acquired(obj, rc) edge_acquired(obj, rc, __builtin_return_address(0))
#define woken(c, m, rc) edge_woken(c, m, rc, __builtin_return_address(0))

/* A read lock learns from writers only: readers do not order each other.
 * The read locks a thread holds are remembered (a few; more are taken
 * for write locks at unlock, which only orders more), so that an unlock
 * releases into the side it held. The reader side is the object's
 * address + 1. */
#define RDHELD 8
static __thread const void *rdheld[RDHELD] __attribute__((tls_model("initial-exec")));

static int rd_acquired(const void *l, int rc, const void *ra)
{
    if (rc != 0 || !mpidbg_tc_edge_from(ra))
        return rc;
    mpidbg_tc_acquire(l);
    for (int i = 0; i < RDHELD; i++)
        if (!rdheld[i]) {
            rdheld[i] = l;
            break;
        }
    return rc;
}

static int wr_acquired(const void *l, int rc, const void *ra)
{
    if (rc == 0 && mpidbg_tc_edge_from(ra)) {
        mpidbg_tc_acquire(l);
        mpidbg_tc_acquire((const char *)l + 1);
    }
    return rc;
}

static void rw_release(const void *l, const void *ra)
{
    int reader = 0;
    for (int i = 0; i < RDHELD; i++)
        if (rdheld[i] == l) {
            rdheld[i] = NULL;
            reader = 1;
            break;
        }
    if (mpidbg_tc_edge_from(ra))
        mpidbg_tc_release(reader ? (const char *)l + 1 : l);
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
    REAL(fn1, pthread_mutex_lock);
    if (!r_pthread_mutex_lock)
        return ENOSYS;
    mpidbg_track_sync_object(m, sizeof *m);
    return acquired(m, r_pthread_mutex_lock(m));
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
    REAL(fn1, pthread_mutex_unlock);
    if (!r_pthread_mutex_unlock)
        return ENOSYS;
    mpidbg_track_sync_object(m, sizeof *m);
    release(m);
    return r_pthread_mutex_unlock(m);
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    REAL(fn2, pthread_cond_wait);
    if (!r_pthread_cond_wait)
        return ENOSYS;
    mpidbg_track_sync_object(c, sizeof *c);
    mpidbg_track_sync_object(m, sizeof *m);
    release(m);
    return woken(c, m, r_pthread_cond_wait(c, m));
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
    REAL(fn3, pthread_cond_timedwait);
    if (!r_pthread_cond_timedwait)
        return ENOSYS;
    mpidbg_track_sync_object(c, sizeof *c);
    mpidbg_track_sync_object(m, sizeof *m);
    release(m);
    return woken(c, m, r_pthread_cond_timedwait(c, m, t));
}

int pthread_cond_signal(pthread_cond_t *c)
{
    REAL(fn1, pthread_cond_signal);
    if (!r_pthread_cond_signal)
        return ENOSYS;
    mpidbg_track_sync_object(c, sizeof *c);
    release(c);
    return r_pthread_cond_signal(c);
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
    REAL(fn1, pthread_cond_broadcast);
    if (!r_pthread_cond_broadcast)
        return ENOSYS;
    mpidbg_track_sync_object(c, sizeof *c);
    release(c);
    return r_pthread_cond_broadcast(c);
}

int pthread_barrier_wait(pthread_barrier_t *b)
{
    REAL(fn1, pthread_barrier_wait);
    if (!r_pthread_barrier_wait)
        return ENOSYS;
    mpidbg_track_sync_object(b, sizeof *b);
    release(b);
    int rc = r_pthread_barrier_wait(b);
    if (rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD)
        acquire(b);
    return rc;
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
    REAL(fn1, pthread_rwlock_rdlock);
    if (!r_pthread_rwlock_rdlock)
        return ENOSYS;
    mpidbg_track_sync_object(l, sizeof *l);
    return rd_acquired(l, r_pthread_rwlock_rdlock(l), __builtin_return_address(0));
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
    REAL(fn1, pthread_rwlock_wrlock);
    if (!r_pthread_rwlock_wrlock)
        return ENOSYS;
    mpidbg_track_sync_object(l, sizeof *l);
    return wr_acquired(l, r_pthread_rwlock_wrlock(l), __builtin_return_address(0));
}

int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
    REAL(fn1, pthread_rwlock_unlock);
    if (!r_pthread_rwlock_unlock)
        return ENOSYS;
    mpidbg_track_sync_object(l, sizeof *l);
    rw_release(l, __builtin_return_address(0));
    return r_pthread_rwlock_unlock(l);
}

int sem_wait(sem_t *s)
{
    REAL(fn1, sem_wait);
    if (!r_sem_wait) {
        errno = ENOSYS;
        return -1;
    }
    mpidbg_track_sync_object(s, sizeof *s);
    return acquired(s, r_sem_wait(s));
}

int sem_timedwait(sem_t *s, const struct timespec *t)
{
    REAL(fn2, sem_timedwait);
    if (!r_sem_timedwait) {
        errno = ENOSYS;
        return -1;
    }
    mpidbg_track_sync_object(s, sizeof *s);
    return acquired(s, r_sem_timedwait(s, (void *)t));
}

int sem_post(sem_t *s)
{
    REAL(fn1, sem_post);
    if (!r_sem_post) {
        errno = ENOSYS;
        return -1;
    }
    mpidbg_track_sync_object(s, sizeof *s);
    release(s);
    return r_sem_post(s);
}

/* The clock variants: libstdc++'s condition_variable::wait_for and
 * wait_until, and timed_mutex, use them. */
int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock, const struct timespec *t)
{
    REAL(fnclock3, pthread_cond_clockwait);
    if (!r_pthread_cond_clockwait)
        return ENOSYS;
    mpidbg_track_sync_object(c, sizeof *c);
    mpidbg_track_sync_object(m, sizeof *m);
    release(m);
    return woken(c, m, r_pthread_cond_clockwait(c, m, clock, t));
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t)
{
    REAL(fn2, pthread_mutex_timedlock);
    if (!r_pthread_mutex_timedlock)
        return ENOSYS;
    mpidbg_track_sync_object(m, sizeof *m);
    return acquired(m, r_pthread_mutex_timedlock(m, (void *)t));
}

int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *t)
{
    REAL(fnclock2, pthread_mutex_clocklock);
    if (!r_pthread_mutex_clocklock)
        return ENOSYS;
    mpidbg_track_sync_object(m, sizeof *m);
    return acquired(m, r_pthread_mutex_clocklock(m, clock, t));
}

int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *t)
{
    REAL(fnclock2, sem_clockwait);
    if (!r_sem_clockwait) {
        errno = ENOSYS;
        return -1;
    }
    mpidbg_track_sync_object(s, sizeof *s);
    return acquired(s, r_sem_clockwait(s, clock, t));
}

/* Calls that never sleep: only the thread clocks need them. */
int pthread_mutex_trylock(pthread_mutex_t *m)
{
    REAL(fn1, pthread_mutex_trylock);
    if (!r_pthread_mutex_trylock)
        return ENOSYS;
    return acquired(m, r_pthread_mutex_trylock(m));
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
    REAL(fn1, pthread_rwlock_tryrdlock);
    if (!r_pthread_rwlock_tryrdlock)
        return ENOSYS;
    return rd_acquired(l, r_pthread_rwlock_tryrdlock(l), __builtin_return_address(0));
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
    REAL(fn1, pthread_rwlock_trywrlock);
    if (!r_pthread_rwlock_trywrlock)
        return ENOSYS;
    return wr_acquired(l, r_pthread_rwlock_trywrlock(l), __builtin_return_address(0));
}

int sem_trywait(sem_t *s)
{
    REAL(fn1, sem_trywait);
    if (!r_sem_trywait) {
        errno = ENOSYS;
        return -1;
    }
    return acquired(s, r_sem_trywait(s));
}

int pthread_spin_lock(pthread_spinlock_t *l)
{
    REAL(fn1, pthread_spin_lock);
    if (!r_pthread_spin_lock)
        return ENOSYS;
    return acquired((const void *)l, r_pthread_spin_lock((void *)l));
}

int pthread_spin_trylock(pthread_spinlock_t *l)
{
    REAL(fn1, pthread_spin_trylock);
    if (!r_pthread_spin_trylock)
        return ENOSYS;
    return acquired((const void *)l, r_pthread_spin_trylock((void *)l));
}

int pthread_spin_unlock(pthread_spinlock_t *l)
{
    REAL(fn1, pthread_spin_unlock);
    if (!r_pthread_spin_unlock)
        return ENOSYS;
    release((const void *)l);
    return r_pthread_spin_unlock((void *)l);
}

/* The timed read and write locks (std::shared_timed_mutex's try_lock_for
 * and try_lock_until): they may sleep, like the others. */
int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *t)
{
    REAL(fn2, pthread_rwlock_timedrdlock);
    if (!r_pthread_rwlock_timedrdlock)
        return ENOSYS;
    mpidbg_track_sync_object(l, sizeof *l);
    return rd_acquired(l, r_pthread_rwlock_timedrdlock(l, (void *)t), __builtin_return_address(0));
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *t)
{
    REAL(fn2, pthread_rwlock_timedwrlock);
    if (!r_pthread_rwlock_timedwrlock)
        return ENOSYS;
    mpidbg_track_sync_object(l, sizeof *l);
    return wr_acquired(l, r_pthread_rwlock_timedwrlock(l, (void *)t), __builtin_return_address(0));
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *t)
{
    REAL(fnclock2, pthread_rwlock_clockrdlock);
    if (!r_pthread_rwlock_clockrdlock)
        return ENOSYS;
    mpidbg_track_sync_object(l, sizeof *l);
    return rd_acquired(l, r_pthread_rwlock_clockrdlock(l, clock, t), __builtin_return_address(0));
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *t)
{
    REAL(fnclock2, pthread_rwlock_clockwrlock);
    if (!r_pthread_rwlock_clockwrlock)
        return ENOSYS;
    mpidbg_track_sync_object(l, sizeof *l);
    return wr_acquired(l, r_pthread_rwlock_clockwrlock(l, clock, t), __builtin_return_address(0));
}
