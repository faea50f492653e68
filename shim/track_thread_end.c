/*
 * The program's threads that end, and the watched pages meanwhile.
 *
 * glibc ends a thread with every signal blocked: after the start routine
 * and the thread-specific data's destructors, start_thread blocks all
 * signals and hands the stack back to the kernel with madvise(2). What a
 * library hooked there runs then, and Open MPI hooks it (its memory
 * patcher rewrites madvise to call its release hooks, UCX's among them).
 * The first such call in the process resolves a PLT slot, and the loader
 * reads the library's link map and version table, which it malloc'd on
 * the program's heap, maybe on the page of a pending receive buffer. A
 * fault with SIGSEGV blocked never reaches the tracker's handler: the
 * kernel ends the process.
 *
 * So while a thread of the program ends, every watched page is open
 * (tr_hold). From the end of the start routine (a
 * return, pthread_exit, thrd_exit or a cancellation: a cleanup handler
 * of the creation wrappers' trampolines) until the thread is gone. Gone
 * is known two ways: its join returned (the kernel cleared its thread
 * id, which it does after the thread's last instruction of user code),
 * or the kernel no longer knows its thread id (tgkill(2) with signal 0
 * answers ESRCH; a thread id reused meanwhile only keeps the pages open
 * longer). A thread of the shim's, started at the first end and never
 * ended (its own end would run the same glibc code), looks every 20 µs
 * while some thread is ending and sleeps on a futex otherwise; every
 * wrapper exit looks too, in case it could not be started
 * (mpidbg_track_queued). Accesses to watched pages in that time are not
 * seen: a thread's end costs at most a missed report, never the
 * process. Threads of the MPI library are not the program's, and end at
 * MPI_Finalize, when nothing is watched any more.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "track_int.h"

/* Threads ending at once. A thread is gone microseconds after it
 * enters the list; a full list waits for one to go. */
#define ENDING_MAX 256

static struct {
    pthread_t self;
    pid_t tid;
} ending[ENDING_MAX];
static int nending;  /* under tr_mu */
static int ending_n; /* atomic: nending, read without the lock */

/* set_count makes ending_n say n; some thread ending is one holder of
 * every page open (tr_hold). Under tr_mu. */
static void set_count(int n)
{
    int was = __atomic_exchange_n(&ending_n, n, __ATOMIC_SEQ_CST);
    if (!was && n)
        tr_hold(1);
    else if (was && !n)
        tr_hold(-1);
}

static void drop(int i)
{
    ending[i] = ending[--nending];
}

/* sweep drops the threads the kernel no longer knows; under tr_mu. */
static void sweep(void)
{
    pid_t pid = getpid();
    for (int i = 0; i < nending;) {
        if (syscall(SYS_tgkill, pid, ending[i].tid, 0) != 0 && errno == ESRCH)
            drop(i);
        else
            i++;
    }
}

/* The shim's thread that looks for the ending threads' going. */
static int reaper_started, atfork_done; /* atomic */

static void *reaper(void *unused)
{
    (void)unused;
    for (;;) {
        while (!__atomic_load_n(&ending_n, __ATOMIC_ACQUIRE))
            syscall(SYS_futex, &ending_n, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
        struct timespec pause = {0, 20000};
        syscall(SYS_nanosleep, &pause, NULL);
        tr_ending_sweep();
    }
    return NULL;
}

static void after_fork_child(void)
{
    /* the parent's threads, and its reaper, are not the child's */
    nending = 0;
    reaper_started = 0;
    __atomic_store_n(&ending_n, 0, __ATOMIC_RELEASE);
}

/* start_reaper: not under tr_mu (pthread_create and pthread_atfork take
 * the loader's and glibc's locks). Like every thread the shim starts, it
 * blocks all but the synchronous signals (threads.c): a signal meant for
 * the program's threads must not land on it. */
static void start_reaper(void)
{
    int no = 0;
    if (!__atomic_compare_exchange_n(&reaper_started, &no, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    pthread_attr_t attr;
    pthread_t t;
    if (pthread_attr_init(&attr) != 0) {
        __atomic_store_n(&reaper_started, 0, __ATOMIC_RELEASE);
        return;
    }
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, reaper, NULL) == 0) {
        if (!__atomic_exchange_n(&atfork_done, 1, __ATOMIC_ACQ_REL))
            pthread_atfork(NULL, NULL, after_fork_child);
    } else {
        __atomic_store_n(&reaper_started, 0, __ATOMIC_RELEASE);
    }
    pthread_attr_destroy(&attr);
}

void mpidbg_track_thread_ends(void)
{
    if (!__atomic_load_n(&mpidbg_track_on, __ATOMIC_ACQUIRE))
        return;
    int e = errno;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    pthread_mutex_lock(&tr_mu);
    sweep();
    for (int tries = 0; nending == ENDING_MAX && tries < 100000; tries++) {
        pthread_mutex_unlock(&tr_mu);
        sched_yield();
        pthread_mutex_lock(&tr_mu);
        sweep();
    }
    if (nending < ENDING_MAX) {
        ending[nending].self = pthread_self();
        ending[nending].tid = tid;
        nending++;
        set_count(nending);
        __atomic_store_n(&mpidbg_track_queued, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&tr_mu);
    start_reaper();
    syscall(SYS_futex, &ending_n, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    errno = e;
}

void mpidbg_track_joined(pthread_t t)
{
    if (!__atomic_load_n(&mpidbg_track_on, __ATOMIC_ACQUIRE))
        return; /* off: nothing is protected (a forked child's tracker, whose tr_mu another thread may have held) */
    if (!__atomic_load_n(&ending_n, __ATOMIC_SEQ_CST) && tr_hold_settled())
        return;
    pthread_mutex_lock(&tr_mu);
    for (int i = 0; i < nending; i++)
        if (pthread_equal(ending[i].self, t)) {
            drop(i);
            break;
        }
    set_count(nending);
    pthread_mutex_unlock(&tr_mu);
}

void tr_ending_sweep(void)
{
    if (!__atomic_load_n(&ending_n, __ATOMIC_ACQUIRE))
        return;
    int e = errno;
    pthread_mutex_lock(&tr_mu);
    sweep();
    set_count(nending);
    if (nending)
        __atomic_store_n(&mpidbg_track_queued, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&tr_mu);
    errno = e;
}
