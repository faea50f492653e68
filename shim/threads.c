/*
 * The program's threads, known from their birth.
 *
 * Under MPI_THREAD_MULTIPLE the deadlock watcher calls a rank blocked
 * only when every thread of the program that could still call MPI is
 * blocked in MPI or waits for another thread (blocked.c). A thread that
 * has not called MPI yet, computing or sleeping before its first send,
 * counts too: so pthread_create is wrapped, and each thread the program
 * starts (an OpenMP runtime's included) gets its record before its start
 * routine runs.
 *
 * The threads of the MPI library and its transports (created inside an
 * MPI call, or by those libraries' code), of the shim's own runtime and
 * of its watcher are not the program's: their sleeping in epoll or
 * nanosleep must not make a rank look busy. They are created untouched.
 *
 * Creation and join are also synchronisation for the thread clocks
 * (tclock.h): a new thread knows what its creator knew, and a thread
 * that joins another knows what that one knew when it ended.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

__thread int mpidbg_thread_seen __attribute__((tls_model("initial-exec")));

/* mpidbg_thread_first: a thread's first MPI call while the shim is
 * active. Under MPI_THREAD_MULTIPLE the thread gets a blocked-call record
 * of its own (blocked.c); and it is bound to the shim's Go runtime now,
 * before any buffer of its own is watched and with every watched page
 * open (mpidbg_track_first_go), not at its first call that needs Go. */
void mpidbg_thread_first(void)
{
    mpidbg_blocked_thread();
    if (!mpidbg_active)
        return; /* MPI_Init's thread, bound there; calls before it, or after MPI_Finalize */
    mpidbg_thread_seen = 1;
    mpidbg_track_first_go(mpidbg_go_enter);
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

struct start {
    void *(*fn)(void *);
    void *arg;
    int clocked;
    int sigs; /* the creator's asked mask (mpidbg_sig_asked) */
    struct mpidbg_tc_vc vc;
};

/* ends: the start routine returned, or the thread exits or is cancelled
 * (a cleanup handler, run for all three). Whoever joins the thread knows
 * what it knew; and glibc's last code for the thread, which runs with
 * every signal blocked, must find no watched page. */
static void ends(void *unused)
{
    (void)unused;
    mpidbg_tc_sync_release((void *)pthread_self());
    mpidbg_track_thread_ends();
}

static void *trampoline(void *p)
{
    struct start s = *(struct start *)p;
    free(p);
    mpidbg_sig_thread_start(s.sigs);
    mpidbg_blocked_thread();
    if (s.clocked)
        mpidbg_tc_learn(&s.vc);
    void *rv;
    pthread_cleanup_push(ends, NULL);
    rv = s.fn(s.arg);
    pthread_cleanup_pop(1);
    return rv;
}

/* Libraries whose threads serve MPI, not the program. */
static const char *const not_program[] = {
    "libmpi", "libmpich", "libopen-pal", "libopen-rte", "libpmix", "libprrte", "libucs", "libucp", "libuct",
    "libucm", "libfabric", "libpsm", "libevent", "libhwloc", "libibverbs", "librdmacm", "libmlx", "libhcoll",
    "libcuda", "libze_",
};

int mpidbg_serves_mpi(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof not_program / sizeof not_program[0]; i++)
        if (strncmp(base, not_program[i], strlen(not_program[i])) == 0)
            return 1;
    return 0;
}

enum creator { BY_PROGRAM, BY_MPI, BY_SHIM };

static enum creator creator_of(void *ra)
{
    if ((uintptr_t)ra - mpidbg_mpi_lo < mpidbg_mpi_len)
        return BY_MPI;
    Dl_info self, caller;
    if (!dladdr((void *)&creator_of, &self) || !dladdr(ra, &caller) || !caller.dli_fname)
        return BY_MPI;
    if (caller.dli_fbase == self.dli_fbase)
        return BY_SHIM; /* the Go runtime may start one inside any wrapper */
    if (mpidbg_depth)
        return BY_MPI;
    return mpidbg_serves_mpi(caller.dli_fname) ? BY_MPI : BY_PROGRAM;
}

/* shim_thread: a thread of the shim's Go runtime starts with every
 * signal blocked. The runtime's first thread records the mask it starts
 * with as the one for all its threads, and unblocks only what it needs
 * itself (the synchronous signals and its preemption signal). Without
 * this a signal sent to the process (kill, a timer, Slurm's scancel
 * --signal) could be delivered to a runtime thread instead of the
 * program's: a program that blocks a signal in all its threads and
 * sigwait()s for it would never see it, and a handler installed without
 * SA_ONSTACK would run on a goroutine's small stack (POSIX.1-2017
 * 2.4.1: a process-directed signal goes to one thread that does not
 * block it). The synchronous signals stay open: they are the thread's
 * own faults. */
static int shim_thread(create_fn real, pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    sigset_t all, before;
    sigfillset(&all);
    static const int synchronous[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof synchronous / sizeof synchronous[0]; i++)
        sigdelset(&all, synchronous[i]);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    int rc = real(t, attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    return rc;
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static create_fn real;
    create_fn r = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (!r) {
        r = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
        if (!r)
            return EAGAIN;
        __atomic_store_n(&real, r, __ATOMIC_RELEASE);
    }
    switch (creator_of(__builtin_return_address(0))) {
    case BY_SHIM:
        return shim_thread(r, t, attr, fn, arg);
    case BY_MPI:
        return r(t, attr, fn, arg);
    case BY_PROGRAM:
        break;
    }
    struct start *s = malloc(sizeof *s);
    if (!s)
        return r(t, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    s->sigs = mpidbg_sig_asked();
    s->clocked = mpidbg_tc_edges();
    if (s->clocked)
        mpidbg_tc_snapshot(&s->vc);
    int rc = r(t, attr, trampoline, s);
    if (rc)
        free(s);
    return rc;
}

typedef int (*join_fn)(pthread_t, void **);

void *mpidbg_next_symbol(void **cache, const char *name)
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}

/* joined: on success the joining thread knows what the joined one knew
 * when it ended. */
static int joined(pthread_t t, int rc)
{
    if (rc == 0) {
        mpidbg_tc_sync_acquire((void *)t);
        mpidbg_track_joined(t);
    }
    return rc;
}

int pthread_join(pthread_t t, void **rv)
{
    static void *cache;
    join_fn r = (join_fn)mpidbg_next_symbol(&cache, "pthread_join");
    return r ? joined(t, r(t, rv)) : ESRCH;
}

/* The other joins. */
typedef int (*timedjoin_fn)(pthread_t, void **, const struct timespec *);
typedef int (*clockjoin_fn)(pthread_t, void **, clockid_t, const struct timespec *);

int pthread_tryjoin_np(pthread_t t, void **rv)
{
    static void *cache;
    join_fn r = (join_fn)mpidbg_next_symbol(&cache, "pthread_tryjoin_np");
    return r ? joined(t, r(t, rv)) : ESRCH;
}

int pthread_timedjoin_np(pthread_t t, void **rv, const struct timespec *abstime)
{
    static void *cache;
    timedjoin_fn r = (timedjoin_fn)mpidbg_next_symbol(&cache, "pthread_timedjoin_np");
    return r ? joined(t, r(t, rv, abstime)) : ESRCH;
}

int pthread_clockjoin_np(pthread_t t, void **rv, clockid_t clock, const struct timespec *abstime)
{
    static void *cache;
    clockjoin_fn r = (clockjoin_fn)mpidbg_next_symbol(&cache, "pthread_clockjoin_np");
    return r ? joined(t, r(t, rv, clock, abstime)) : ESRCH;
}

/* pthread_once: whoever returns from it knows what the initialiser did.
 * The initialiser takes no argument, so the thread that runs it finds it
 * in its own storage (saved around nested calls). */
static __thread void (*once_fn)(void);
static __thread pthread_once_t *once_ctl;

static void once_trampoline(void)
{
    void (*fn)(void) = once_fn;
    pthread_once_t *ctl = once_ctl;
    fn();
    mpidbg_tc_sync_release(ctl);
}

int pthread_once(pthread_once_t *ctl, void (*fn)(void))
{
    static void *cache;
    int (*r)(pthread_once_t *, void (*)(void)) = (int (*)(pthread_once_t *, void (*)(void)))mpidbg_next_symbol(&cache, "pthread_once");
    if (!r)
        return EINVAL;
    if (!mpidbg_tc_edges())
        return r(ctl, fn);
    void (*sfn)(void) = once_fn;
    pthread_once_t *sctl = once_ctl;
    once_fn = fn;
    once_ctl = ctl;
    int rc = r(ctl, once_trampoline);
    once_fn = sfn;
    once_ctl = sctl;
    if (rc == 0)
        mpidbg_tc_acquire(ctl);
    return rc;
}

/* A thread that ends with pthread_exit leaves its clock as one that
 * returns from its start routine does. */
void pthread_exit(void *rv)
{
    static void *cache;
    void (*r)(void *) = (void (*)(void *))mpidbg_next_symbol(&cache, "pthread_exit");
    mpidbg_tc_sync_release((void *)pthread_self());
    if (r)
        r(rv);
    abort(); /* not reached: pthread_exit does not return */
}
