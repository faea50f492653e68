/*
 * The blocked-call record (blocked.h): written around every call that
 * can block, read by the deadlock watcher (watch.go) from its own thread.
 *
 * The hot path is a handful of stores: no clock, no formatting. The
 * watcher notices a call that stays (the same seq for a while), then asks
 * for the stack, which the blocked thread takes itself in a signal
 * handler (backtrace(3) walks only the calling thread's stack), and the
 * arguments are formatted then, from the wait entries.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "shim.h"

static struct mpidbg_blocked rec;
static struct mpidbg_poll poll_times;
static pthread_t owner;
/* The polling episode, the polling thread's own: the requests it tests
 * (a key), the call count at its last test, when the current test began. */
static struct {
    int on;
    uint64_t key, ncalls;
    int64_t enter_ns;
} ep;
uint64_t mpidbg_ncalls;
static int stack_sig;               /* 0: no handler, no stacks */
static volatile sig_atomic_t want;  /* the seq whose stack is asked for, low bits */
static volatile sig_atomic_t taken;

static void on_stack_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    if (!want || rec.seq % 2 || (sig_atomic_t)(rec.seq & 0x3fffffff) != want)
        return;
    void *pcs[MPIDBG_STACK_MAX + 2];
    int n = backtrace(pcs, MPIDBG_STACK_MAX + 2);
    int k = 0;
    /* frames 0 and 1 are this handler and the signal trampoline */
    for (int i = 2; i < n && k < MPIDBG_STACK_MAX; i++)
        rec.frames[k++] = (uint64_t)(uintptr_t)pcs[i];
    rec.nframes = k;
    taken = want;
}

void mpidbg_blocked_init(void)
{
    void *prime[2];
    backtrace(prime, 2); /* loads libgcc_s now, not in a signal handler */
    int sig = SIGRTMIN + 7;
    struct sigaction old;
    if (sig > SIGRTMAX || sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_stack_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, NULL) == 0)
        stack_sig = sig;
}

void mpidbg_blocked_begin(struct mpidbg_cx *cx, int mode)
{
    __atomic_store_n(&rec.seq, rec.seq + 1, __ATOMIC_RELAXED); /* odd: writing */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    owner = pthread_self();
    rec.active = 1;
    rec.call = cx->call;
    rec.site = cx->site;
    rec.mode = mode;
    rec.nwait = 0;
    rec.zero_buffered = 0;
    rec.nframes = 0;
    rec.polling = 0;
    rec.args[0] = 0;
    ep.on = 0;
}

static struct mpidbg_wait *next_wait(void)
{
    int i = rec.nwait++;
    return i < MPIDBG_WAIT_MAX ? &rec.wait[i] : NULL;
}

void mpidbg_blocked_wait(int kind, int peer, int tag, struct mpidbg_cobj *co, uint64_t coll_seq, int call,
                         uint64_t site)
{
    struct mpidbg_wait *w = next_wait();
    if (!w)
        return;
    w->kind = kind;
    w->peer = peer;
    w->tag = tag;
    w->call = call;
    w->win = 0;
    w->comm = co ? co->handle : 0;
    w->comm_id = co ? co->gid : 0;
    w->coll_seq = coll_seq;
    w->site = site;
}

void mpidbg_blocked_wait_win(int kind, int peer, uint64_t win, uint64_t win_id, uint64_t coll_seq, int call)
{
    struct mpidbg_wait *w = next_wait();
    if (!w)
        return;
    w->kind = kind;
    w->peer = peer;
    w->tag = 0;
    w->call = call;
    w->win = 1;
    w->comm = win;
    w->comm_id = win_id;
    w->coll_seq = coll_seq;
    w->site = 0;
}

/* mpidbg_blocked_publish ends the writing begun by mpidbg_blocked_begin. */
void mpidbg_blocked_publish(void)
{
    /* a standard-mode send the shim made synchronous (--buffering=zero) */
    for (int i = 0; mpidbg_xr_zero && i < rec.nwait && i < MPIDBG_WAIT_MAX; i++)
        if (rec.wait[i].kind == MPIDBG_WAIT_SEND && mpidbg_standard_send(rec.wait[i].call))
            rec.zero_buffered = 1;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&rec.seq, rec.seq + 1, __ATOMIC_RELEASE);
}

void mpidbg_blocked_end(void)
{
    __atomic_store_n(&rec.seq, rec.seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    rec.active = 0;
    rec.polling = 0;
    ep.on = 0;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&rec.seq, rec.seq + 1, __ATOMIC_RELEASE);
}

/* ---- polling ----
 * A test that completes nothing continues the episode when it tests the
 * same requests and no other MPI call came since the last test (every
 * wrapper counts itself in mpidbg_ncalls); else it starts a new one with
 * a record of its own. The time inside the tests is added up. */

/* mono_ns is the coarse clock (a tick is 1-10 ms), a few nanoseconds
 * where CLOCK_MONOTONIC costs 20-70 at every test. The time inside the
 * tests is then an estimate: a test is credited a whole tick when the
 * tick turns during it, which happens in proportion to the time spent
 * inside, so over the many tests of a loop the share comes out right. */
static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void mpidbg_poll_enter(void)
{
    ep.enter_ns = mono_ns();
    __atomic_store_n(&poll_times.enter_ns, ep.enter_ns, __ATOMIC_RELAXED);
}

int mpidbg_poll_continues(uint64_t key)
{
    uint64_t n = __atomic_load_n(&mpidbg_ncalls, __ATOMIC_RELAXED);
    if (!ep.on || ep.key != key || n != ep.ncalls + 1 || !rec.polling)
        return 0;
    int64_t t = mono_ns();
    ep.ncalls = n;
    __atomic_store_n(&poll_times.in_ns, poll_times.in_ns + (t - ep.enter_ns), __ATOMIC_RELAXED);
    __atomic_store_n(&poll_times.last_ns, t, __ATOMIC_RELAXED);
    __atomic_store_n(&poll_times.enter_ns, 0, __ATOMIC_RELAXED);
    return 1;
}

void mpidbg_poll_publish(uint64_t key)
{
    int64_t t = mono_ns();
    rec.polling = 1;
    __atomic_store_n(&poll_times.start_ns, ep.enter_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&poll_times.in_ns, t - ep.enter_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&poll_times.last_ns, t, __ATOMIC_RELAXED);
    __atomic_store_n(&poll_times.enter_ns, 0, __ATOMIC_RELAXED);
    mpidbg_blocked_publish();
    ep.on = 1;
    ep.key = key;
    ep.ncalls = __atomic_load_n(&mpidbg_ncalls, __ATOMIC_RELAXED);
}

void mpidbg_poll_stop(void)
{
    __atomic_store_n(&poll_times.enter_ns, 0, __ATOMIC_RELAXED);
    if (ep.on && rec.polling)
        mpidbg_blocked_end();
    ep.on = 0;
}

void mpidbg_poll_read(struct mpidbg_poll *out)
{
    out->start_ns = __atomic_load_n(&poll_times.start_ns, __ATOMIC_RELAXED);
    out->last_ns = __atomic_load_n(&poll_times.last_ns, __ATOMIC_RELAXED);
    out->in_ns = __atomic_load_n(&poll_times.in_ns, __ATOMIC_RELAXED);
    out->enter_ns = __atomic_load_n(&poll_times.enter_ns, __ATOMIC_RELAXED);
    out->now_ns = mono_ns();
}

int mpidbg_blocked_read(struct mpidbg_blocked *out)
{
    for (int tries = 0; tries < 8; tries++) {
        uint64_t s = __atomic_load_n(&rec.seq, __ATOMIC_ACQUIRE);
        if (s % 2)
            continue;
        memcpy(out, (const void *)&rec, sizeof *out);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&rec.seq, __ATOMIC_RELAXED) == s) {
            out->seq = s;
            return 1;
        }
    }
    return 0;
}

static const char *comm_name(uint64_t h, char *buf, size_t n)
{
    struct mpidbg_cobj *co = mpidbg_hmap_get(&mpidbg_comms, h);
    if (co && co->rec && co->rec->name[0])
        snprintf(buf, n, "%s", co->rec->name);
    else
        snprintf(buf, n, "%#llx", (unsigned long long)h);
    return buf;
}

/* format_args writes the arguments the detector shows, from the entries. */
static void format_args(struct mpidbg_blocked *b)
{
    char *p = b->args, *end = b->args + sizeof b->args;
    char cn[64];
    int n = b->nwait < MPIDBG_WAIT_MAX ? b->nwait : MPIDBG_WAIT_MAX;
    for (int i = 0; i < n && p < end; i++) {
        const struct mpidbg_wait *w = &b->wait[i];
        const char *sep = i ? "; " : "";
        if (w->win) { /* blocked_win.c: the window's name is in the wait */
            if (w->kind == MPIDBG_WAIT_COLL)
                p += snprintf(p, end - p, "%scollective #%llu on the window", sep, (unsigned long long)w->coll_seq);
            else if (w->kind == MPIDBG_WAIT_SYNC)
                p += snprintf(p, end - p, "%s%s=%d", sep, w->call == MPIDBG_CALL_MPI_Win_wait ? "origin" : "target", w->peer);
            else
                p += snprintf(p, end - p, "%s%s", sep, mpidbg_call_name(w->call));
            continue;
        }
        switch (w->kind) {
        case MPIDBG_WAIT_RECV:
            if (w->peer < 0)
                p += snprintf(p, end - p, "%ssource=MPI_ANY_SOURCE", sep);
            else
                p += snprintf(p, end - p, "%ssource=%d", sep, w->peer);
            if (p < end)
                p += w->tag == MPI_ANY_TAG ? snprintf(p, end - p, ", tag=MPI_ANY_TAG") : snprintf(p, end - p, ", tag=%d", w->tag);
            break;
        case MPIDBG_WAIT_SEND:
            p += snprintf(p, end - p, "%sdest=%d, tag=%d", sep, w->peer, w->tag);
            break;
        case MPIDBG_WAIT_COLL:
            p += snprintf(p, end - p, "%s%s (collective #%llu)", sep, mpidbg_call_name(w->call),
                          (unsigned long long)w->coll_seq);
            break;
        default:
            p += snprintf(p, end - p, "%s%s", sep, mpidbg_call_name(w->call));
            continue;
        }
        if (p < end && w->comm)
            p += snprintf(p, end - p, ", comm=%s", comm_name(w->comm, cn, sizeof cn));
    }
    if (b->nwait > MPIDBG_WAIT_MAX && p < end)
        snprintf(p, end - p, "; and %d more", b->nwait - MPIDBG_WAIT_MAX);
}

int mpidbg_blocked_stack(uint64_t seq)
{
    if (!(seq % 2 == 0) || __atomic_load_n(&rec.seq, __ATOMIC_ACQUIRE) != seq || !rec.active)
        return 0;
    format_args(&rec);
    if (!stack_sig)
        return 0;
    taken = 0;
    want = (sig_atomic_t)(seq & 0x3fffffff);
    if (pthread_kill(owner, stack_sig) != 0) {
        want = 0;
        return 0;
    }
    struct timespec ts = {0, 2 * 1000 * 1000};
    for (int i = 0; i < 50 && taken != want; i++)
        nanosleep(&ts, NULL);
    int ok = taken == want;
    want = 0;
    return ok;
}
