/*
 * The program's real-time timers, for the deadlock watcher (blocked.c).
 *
 * Under MPI_THREAD_MULTIPLE a rank is blocked when its threads are
 * blocked in MPI or wait for another thread in futex(2). A timer's
 * signal handler may wake such a thread (sem_post is async-signal-safe),
 * and so may a SIGEV_THREAD timer's function: a rank whose worker waits
 * on a semaphore an alarm(3) handler posts is not deadlocked, it waits
 * for the alarm. So alarm, setitimer(ITIMER_REAL) and timer_settime are
 * wrapped, and while a timer armed through them may still expire (a
 * one-shot one until its time, a periodic one until it is disarmed), a
 * thread that waits for another thread is not taken for blocked for
 * good (mpidbg_timer_pending); timer_create and timer_delete are
 * wrapped for the timers' clocks. Only a timer that can wake a thread
 * counts: its signal has a handler when it is armed (or it runs a
 * function, SIGEV_THREAD), and it does not count CPU time.
 * ITIMER_VIRTUAL and ITIMER_PROF count the process's CPU time, which a
 * blocked process does not spend: they never expire then. A timer armed
 * by a raw system call is not seen.
 *
 * A SIGEV_THREAD timer also holds every watched page open while it
 * exists (below).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "track.h"

#define FOREVER INT64_MAX
#define TIMERS 64

static int64_t real_until; /* atomic: alarm and ITIMER_REAL (one timer); 0 disarmed */
static struct {
    timer_t id;
    clockid_t clock;
    int used;      /* atomic: a timer_create's, until its timer_delete */
    int held;      /* a SIGEV_THREAD timer's: every watched page held open */
    int wakes;     /* it can wake a waiting thread (can_wake) */
    int64_t until; /* atomic */
} posix_timers[TIMERS];

/* handled: the program has a handler for sig (the default kills or
 * does nothing, as ignoring does) */
static int handled(int sig)
{
    struct sigaction cur;
    return sigaction(sig, NULL, &cur) == 0 && cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN;
}

static int64_t span_ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* until_of: when a timer armed now with value v and interval iv may last
 * expire (0: disarmed) */
static int64_t until_of(int64_t v, int64_t iv)
{
    if (v <= 0)
        return 0;
    return iv > 0 ? FOREVER : mpidbg_mono_ns() + v;
}

int mpidbg_timer_pending(int64_t now)
{
    int64_t u = __atomic_load_n(&real_until, __ATOMIC_RELAXED);
    if (u > now)
        return 1;
    for (int i = 0; i < TIMERS; i++)
        if (__atomic_load_n(&posix_timers[i].used, __ATOMIC_ACQUIRE) &&
            __atomic_load_n(&posix_timers[i].until, __ATOMIC_RELAXED) > now)
            return 1;
    return 0;
}

unsigned int alarm(unsigned int seconds)
{
    static void *cache;
    unsigned int (*real)(unsigned int) = (unsigned int (*)(unsigned int))mpidbg_next_symbol(&cache, "alarm");
    if (!real)
        return 0;
    unsigned int left = real(seconds);
    __atomic_store_n(&real_until, handled(SIGALRM) ? until_of((int64_t)seconds * 1000000000, 0) : 0, __ATOMIC_RELAXED);
    return left;
}

int setitimer(__itimer_which_t which, const struct itimerval *v, struct itimerval *old)
{
    static void *cache;
    int (*real)(__itimer_which_t, const struct itimerval *, struct itimerval *) =
        (int (*)(__itimer_which_t, const struct itimerval *, struct itimerval *))mpidbg_next_symbol(&cache, "setitimer");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    int rc = real(which, v, old);
    if (rc == 0 && v && which == ITIMER_REAL) {
        int64_t val = (int64_t)v->it_value.tv_sec * 1000000000 + (int64_t)v->it_value.tv_usec * 1000;
        int64_t iv = (int64_t)v->it_interval.tv_sec * 1000000000 + (int64_t)v->it_interval.tv_usec * 1000;
        __atomic_store_n(&real_until, handled(SIGALRM) ? until_of(val, iv) : 0, __ATOMIC_RELAXED);
    }
    return rc;
}

static int slot_of(timer_t id)
{
    for (int i = 0; i < TIMERS; i++)
        if (__atomic_load_n(&posix_timers[i].used, __ATOMIC_ACQUIRE) && posix_timers[i].id == id)
            return i;
    return -1;
}

/* can_wake: a timer on this clock with this notification can wake a
 * waiting thread: not one that counts CPU time (a blocked process spends
 * none), not SIGEV_NONE, not a signal with no handler (it kills or does
 * nothing) */
static int can_wake(clockid_t clock, const struct sigevent *sev)
{
    if (clock == CLOCK_PROCESS_CPUTIME_ID || clock == CLOCK_THREAD_CPUTIME_ID || clock < 0)
        return 0; /* < 0: a thread's or process's CPU clock (pthread_getcpuclockid, clock_getcpuclockid) */
    if (!sev)
        return handled(SIGALRM);
    if (sev->sigev_notify == SIGEV_NONE)
        return 0;
    if (sev->sigev_notify == SIGEV_THREAD)
        return 1;
    return handled(sev->sigev_signo);
}

/* A SIGEV_THREAD timer runs on threads glibc starts with every signal
 * blocked: its helper thread, which reads glibc's record of the timer
 * and allocates, and a thread per expiration that runs the program's
 * function. A fault there on a page beside a pending receive buffer
 * would end the process, so every watched page is held open from the
 * timer's creation to its deletion (mpidbg_track_hold): the access
 * tracker watches nothing meanwhile. */
static int thread_timer(const struct sigevent *sev)
{
    return sev && sev->sigev_notify == SIGEV_THREAD;
}

int timer_create(clockid_t clock, struct sigevent *sev, timer_t *id)
{
    static void *cache;
    int (*real)(clockid_t, struct sigevent *, timer_t *) =
        (int (*)(clockid_t, struct sigevent *, timer_t *))mpidbg_next_symbol(&cache, "timer_create");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    int held = thread_timer(sev);
    if (held)
        mpidbg_track_hold(1);
    int rc = real(clock, sev, id);
    if (rc != 0 && held)
        mpidbg_track_hold(-1);
    int wakes = rc == 0 && can_wake(clock, sev);
    if (rc != 0 || (!wakes && !held))
        return rc;
    for (int i = 0; i < TIMERS; i++) {
        int free_slot = 0;
        if (__atomic_compare_exchange_n(&posix_timers[i].used, &free_slot, 2, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            posix_timers[i].id = *id;
            posix_timers[i].clock = clock;
            posix_timers[i].held = held;
            posix_timers[i].wakes = wakes;
            __atomic_store_n(&posix_timers[i].until, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&posix_timers[i].used, 1, __ATOMIC_RELEASE);
            return rc;
        }
    }
    if (wakes)
        __atomic_store_n(&real_until, FOREVER, __ATOMIC_RELAXED); /* no room to follow it: taken as always pending, */
    return rc;                                                    /* and held for good */
}

int timer_settime(timer_t id, int flags, const struct itimerspec *v, struct itimerspec *old)
{
    static void *cache;
    int (*real)(timer_t, int, const struct itimerspec *, struct itimerspec *) =
        (int (*)(timer_t, int, const struct itimerspec *, struct itimerspec *))mpidbg_next_symbol(&cache, "timer_settime");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    int rc = real(id, flags, v, old);
    if (rc != 0 || !v)
        return rc;
    int i = slot_of(id);
    if (i < 0)
        return rc; /* not followed: already taken as always pending */
    if (!posix_timers[i].wakes)
        return rc; /* followed for its hold only */
    int64_t val = span_ns(&v->it_value), iv = span_ns(&v->it_interval);
    if (val > 0 && (flags & TIMER_ABSTIME)) {
        /* an absolute time on the timer's clock: its distance from now */
        struct timespec now;
        if (clock_gettime(posix_timers[i].clock, &now) != 0)
            val = FOREVER;
        else
            val = val - span_ns(&now) > 0 ? val - span_ns(&now) : 1;
    }
    int64_t until = val == FOREVER ? FOREVER : until_of(val, iv);
    __atomic_store_n(&posix_timers[i].until, until, __ATOMIC_RELAXED);
    return rc;
}

int timer_delete(timer_t id)
{
    static void *cache;
    int (*real)(timer_t) = (int (*)(timer_t))mpidbg_next_symbol(&cache, "timer_delete");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    int i = slot_of(id), held = 0;
    if (i >= 0) {
        held = posix_timers[i].held;
        __atomic_store_n(&posix_timers[i].until, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&posix_timers[i].used, 0, __ATOMIC_RELEASE);
    }
    int rc = real(id);
    if (held)
        mpidbg_track_hold(-1);
    return rc;
}
