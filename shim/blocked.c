/*
 * The blocked-call record (blocked.h): written around every call that
 * can block, read by the deadlock watcher (watch.go) from its own thread.
 *
 * The hot path is a handful of stores: no clock, no formatting. The
 * watcher notices a call that stays (the same seq for a while), then asks
 * for the stack, which the blocked thread takes itself in a signal
 * handler (backtrace(3) walks only the calling thread's stack), and the
 * arguments are formatted then, from the wait entries.
 *
 * Threads. Below MPI_THREAD_MULTIPLE one thread at a time is inside MPI
 * and one record serves them all. Under MPI_THREAD_MULTIPLE every thread
 * that calls MPI writes a record of its own (a slot, claimed at its first
 * call, given back when it exits), and the watcher reads the rank's
 * record composed from them (compose): the rank is blocked when some
 * thread is blocked in MPI and every other thread that has called MPI is
 * blocked in MPI too, or waits for another thread of the process (in
 * futex(2), using no CPU: an OpenMP barrier or join, pthread_join, a
 * condition variable, a thread pool's idle loop). A thread that runs, or
 * sleeps on its own (nanosleep, poll, I/O), can still make the call that
 * unblocks the others: the rank is then not blocked, whatever the other
 * threads wait for. Several blocked threads wait in OR: the rank moves on
 * when any of them can (a thread waiting for several things at once in
 * AND is then flattened to OR, which can only hide a deadlock, never
 * invent one).
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "xr_node.h"

#define NSLOT 256

/* A thread's record. The last fields are the reader's own (compose). */
struct slot {
    struct mpidbg_blocked rec;
    struct mpidbg_poll poll;
    pthread_t owner;
    clockid_t cpu;  /* the thread's CPU-time clock */
    pid_t tid;
    int used;       /* claimed by a live thread */
    uint64_t last_seq;
    int64_t last_cpu, last_ns, idle_since;
};

static struct slot slots[NSLOT];
static struct slot spare;            /* threads beyond NSLOT write here; nobody reads it */
static int too_many;                 /* then the rank is never called blocked */
static uint64_t generation;          /* slots claimed and given back, in the composed seq */
static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t read_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread struct slot *self_slot __attribute__((tls_model("initial-exec")));

/* A polling episode, the polling thread's own: the requests it tests
 * (a key), the call count at its last test, when the current test began. */
static __thread struct {
    int on;
    uint64_t key, ncalls;
    int64_t enter_ns;
} ep __attribute__((tls_model("initial-exec")));
uint64_t mpidbg_ncalls;
static int stack_sig;               /* 0: no handler, no stacks */
static volatile sig_atomic_t want;  /* the seq whose stack is asked for, low bits */
static volatile sig_atomic_t taken;

static void slot_release(void *p)
{
    struct slot *s = p;
    if (s == &spare)
        return;
    __atomic_store_n(&s->rec.seq, s->rec.seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    s->rec.active = 0;
    s->rec.polling = 0;
    __atomic_store_n(&s->rec.seq, s->rec.seq + 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
}

static void slot_key_make(void)
{
    pthread_key_create(&slot_key, slot_release);
}

static struct slot *claim(void)
{
    pthread_once(&slot_once, slot_key_make);
    /* slot 0 is the one record below MPI_THREAD_MULTIPLE: never claimed,
     * so that a thread claiming before MPI_Init told the level, and
     * leaving, cannot touch it */
    for (int i = 1; i < NSLOT; i++) {
        struct slot *s = &slots[i];
        int free_ = 0;
        if (__atomic_load_n(&s->used, __ATOMIC_RELAXED) || !__atomic_compare_exchange_n(&s->used, &free_, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            continue;
        s->owner = pthread_self();
        s->tid = (pid_t)syscall(SYS_gettid);
        if (pthread_getcpuclockid(s->owner, &s->cpu) != 0)
            s->cpu = (clockid_t)-1;
        s->last_ns = 0;
        s->rec.active = 0;
        s->rec.polling = 0;
        __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
        self_slot = s;
        pthread_setspecific(slot_key, s);
        return s;
    }
    if (!__atomic_exchange_n(&too_many, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "mpidbg: rank %d: more than %d threads: its deadlocks are no longer detected\n", mpidbg_world_rank,
                NSLOT - 1);
    return self_slot = &spare;
}

/* me is the calling thread's slot: the one record below
 * MPI_THREAD_MULTIPLE. */
static inline struct slot *me(void)
{
    if (!mpidbg_mt)
        return &slots[0];
    return self_slot ? self_slot : claim();
}

void mpidbg_blocked_thread(void)
{
    if (mpidbg_mt && !self_slot)
        claim();
}

static void on_stack_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    struct slot *s = mpidbg_mt && self_slot ? self_slot : &slots[0];
    if (!want || s->rec.seq % 2 || (sig_atomic_t)(s->rec.seq & 0x3fffffff) != want)
        return;
    void *pcs[MPIDBG_STACK_MAX + 2];
    int n = backtrace(pcs, MPIDBG_STACK_MAX + 2);
    int k = 0;
    /* frames 0 and 1 are this handler and the signal trampoline */
    for (int i = 2; i < n && k < MPIDBG_STACK_MAX; i++)
        s->rec.frames[k++] = (uint64_t)(uintptr_t)pcs[i];
    s->rec.nframes = k;
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

/* A record is written between write_open (seq odd: a reader tries
 * again) and write_close (seq even: the record is whole). */
static inline void write_open(struct mpidbg_blocked *rec)
{
    __atomic_store_n(&rec->seq, rec->seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void write_close(struct mpidbg_blocked *rec)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&rec->seq, rec->seq + 1, __ATOMIC_RELEASE);
}

void mpidbg_blocked_begin(struct mpidbg_cx *cx, int mode)
{
    struct slot *s = me();
    struct mpidbg_blocked *rec = &s->rec;
    write_open(rec);
    s->owner = pthread_self();
    rec->active = 1;
    rec->call = cx->call;
    rec->site = cx->site;
    rec->mode = mode;
    rec->nwait = 0;
    rec->zero_buffered = 0;
    rec->nframes = 0;
    rec->polling = 0;
    rec->args[0] = 0;
    ep.on = 0;
}

static struct mpidbg_wait *next_wait(void)
{
    struct mpidbg_blocked *rec = &me()->rec;
    int i = rec->nwait++;
    return i < MPIDBG_WAIT_MAX ? &rec->wait[i] : NULL;
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
    w->slot = w->slot_word = 0;
}

void mpidbg_blocked_more(int n)
{
    if (n > 0)
        me()->rec.nwait += n;
}

void mpidbg_blocked_slot(const struct mpidbg_rslot *s)
{
    struct mpidbg_blocked *rec = &me()->rec;
    if (!s || rec->nwait < 1 || rec->nwait > MPIDBG_WAIT_MAX)
        return;
    struct mpidbg_wait *w = &rec->wait[rec->nwait - 1];
    w->slot = (uint64_t)(uintptr_t)s;
    w->slot_word = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
}

/* The segment stays mapped for the process's life, so a slot named in a
 * copy of the record can be read at any time. */
int mpidbg_blocked_taken(const struct mpidbg_wait *w)
{
    if (!w->slot || w->kind != MPIDBG_WAIT_SEND)
        return 0;
    const struct mpidbg_rslot *s = (const struct mpidbg_rslot *)(uintptr_t)w->slot;
    return __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != w->slot_word;
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
    w->slot = w->slot_word = 0;
}

/* mpidbg_blocked_publish ends the writing begun by mpidbg_blocked_begin. */
void mpidbg_blocked_publish(void)
{
    struct mpidbg_blocked *rec = &me()->rec;
    /* a standard-mode send the shim made synchronous (--buffering=zero) */
    for (int i = 0; mpidbg_xr_zero && i < rec->nwait && i < MPIDBG_WAIT_MAX; i++)
        if (rec->wait[i].kind == MPIDBG_WAIT_SEND && mpidbg_standard_send(rec->wait[i].call))
            rec->zero_buffered = 1;
    write_close(rec);
}

void mpidbg_blocked_end(void)
{
    struct mpidbg_blocked *rec = &me()->rec;
    write_open(rec);
    rec->active = 0;
    rec->polling = 0;
    ep.on = 0;
    write_close(rec);
}

int mpidbg_blocked_pause(void)
{
    struct mpidbg_blocked *rec = &me()->rec;
    if (!rec->active)
        return 0;
    write_open(rec);
    rec->active = 0;
    write_close(rec);
    return 1;
}

void mpidbg_blocked_resume(int was)
{
    if (!was)
        return;
    struct mpidbg_blocked *rec = &me()->rec;
    write_open(rec);
    rec->active = 1;
    write_close(rec);
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
    struct slot *s = me();
    ep.enter_ns = mono_ns();
    __atomic_store_n(&s->poll.enter_ns, ep.enter_ns, __ATOMIC_RELAXED);
}

int mpidbg_poll_continues(uint64_t key)
{
    struct slot *s = me();
    uint64_t n = __atomic_load_n(&mpidbg_ncalls, __ATOMIC_RELAXED);
    if (!ep.on || ep.key != key || n != ep.ncalls + 1 || !s->rec.polling)
        return 0;
    int64_t t = mono_ns();
    ep.ncalls = n;
    __atomic_store_n(&s->poll.in_ns, s->poll.in_ns + (t - ep.enter_ns), __ATOMIC_RELAXED);
    __atomic_store_n(&s->poll.last_ns, t, __ATOMIC_RELAXED);
    __atomic_store_n(&s->poll.enter_ns, 0, __ATOMIC_RELAXED);
    return 1;
}

void mpidbg_poll_publish(uint64_t key)
{
    struct slot *s = me();
    int64_t t = mono_ns();
    s->rec.polling = 1;
    __atomic_store_n(&s->poll.start_ns, ep.enter_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&s->poll.in_ns, t - ep.enter_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&s->poll.last_ns, t, __ATOMIC_RELAXED);
    __atomic_store_n(&s->poll.enter_ns, 0, __ATOMIC_RELAXED);
    mpidbg_blocked_publish();
    ep.on = 1;
    ep.key = key;
    ep.ncalls = __atomic_load_n(&mpidbg_ncalls, __ATOMIC_RELAXED);
}

void mpidbg_poll_stop(void)
{
    struct slot *s = me();
    __atomic_store_n(&s->poll.enter_ns, 0, __ATOMIC_RELAXED);
    if (ep.on && s->rec.polling)
        mpidbg_blocked_end();
    ep.on = 0;
}

/* mpidbg_poll_read reads the polling times of the record the watcher
 * reads: the one record below MPI_THREAD_MULTIPLE. Above, a thread that
 * polls is not blocked (compose) and nothing is read here. */
void mpidbg_poll_read(struct mpidbg_poll *out)
{
    const struct mpidbg_poll *p = &slots[0].poll;
    out->start_ns = __atomic_load_n(&p->start_ns, __ATOMIC_RELAXED);
    out->last_ns = __atomic_load_n(&p->last_ns, __ATOMIC_RELAXED);
    out->in_ns = __atomic_load_n(&p->in_ns, __ATOMIC_RELAXED);
    out->enter_ns = __atomic_load_n(&p->enter_ns, __ATOMIC_RELAXED);
    out->now_ns = mono_ns();
}

static int read_slot(const struct slot *s, struct mpidbg_blocked *out)
{
    const struct mpidbg_blocked *rec = &s->rec;
    for (int tries = 0; tries < 8; tries++) {
        uint64_t q = __atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE);
        if (q % 2)
            continue;
        memcpy(out, (const void *)rec, sizeof *out);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&rec->seq, __ATOMIC_RELAXED) == q) {
            out->seq = q;
            return 1;
        }
    }
    return 0;
}

/* in_futex says whether thread tid waits, with no timeout, for another
 * thread of the process: it sleeps in futex(2) with FUTEX_WAIT or
 * FUTEX_WAIT_BITSET and no timeout (/proc/self/task/TID/syscall: the
 * number, then the arguments; "running" when it runs). A timed wait is a
 * timer: such a thread may still call MPI on its own. Shared futexes
 * count too: pthread_join waits on one (the kernel wakes it when the
 * thread ends); a process-shared mutex held by another process is taken
 * for a thread's, which programs of MPI ranks seldom have. */
static int in_futex(pid_t tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0 || buf[0] < '0' || buf[0] > '9')
        return 0;
    buf[n] = 0;
    char *p = buf;
    long nr = strtol(p, &p, 10);
    unsigned long long arg[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++)
        arg[i] = strtoull(p, &p, 16);
    unsigned op = (unsigned)arg[1];
    const unsigned wait = 0, wait_bitset = 9; /* the low bits; 128 is FUTEX_PRIVATE_FLAG, 256 FUTEX_CLOCK_REALTIME */
    return nr == SYS_futex && ((op & 127) == wait || (op & 127) == wait_bitset) && arg[3] == 0;
}

#define IDLE_NS (250 * 1000 * 1000LL)

static void format_args(struct mpidbg_blocked *b);

/* polls_only says whether a thread that polls the same requests (its
 * record is marked polling) has done nothing else for IDLE_NS: at least
 * half of the episode inside the tests, and inside one now or a moment
 * ago (the coarse clock's times; watch.go judges the one record below
 * MPI_THREAD_MULTIPLE the same way). */
static int polls_only(const struct slot *s)
{
    int64_t start = __atomic_load_n(&s->poll.start_ns, __ATOMIC_RELAXED), last = __atomic_load_n(&s->poll.last_ns, __ATOMIC_RELAXED),
            in = __atomic_load_n(&s->poll.in_ns, __ATOMIC_RELAXED), enter = __atomic_load_n(&s->poll.enter_ns, __ATOMIC_RELAXED);
    int64_t t = mono_ns();
    if (enter)
        in += t - enter;
    return start && t - start >= IDLE_NS && 2 * in >= t - start && (enter || t - last < 100 * 1000 * 1000LL);
}

/* waiting says whether a thread outside MPI has been waiting for another
 * thread (in futex, on under a quarter of a CPU) for IDLE_NS; a thread
 * that made an MPI call since the last look starts afresh. */
static int waiting(struct slot *s, uint64_t seq, int64_t now)
{
    struct timespec ts;
    if (s->cpu == (clockid_t)-1 || clock_gettime(s->cpu, &ts) != 0)
        return 1; /* the thread is gone */
    int64_t cpu = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    int fresh = !s->last_ns || seq != s->last_seq;
    int64_t dcpu = cpu - s->last_cpu, dt = now - s->last_ns;
    s->last_seq = seq;
    s->last_cpu = cpu;
    s->last_ns = now;
    if (fresh || 4 * dcpu > dt || mpidbg_timer_pending(now) || !in_futex(s->tid)) {
        s->idle_since = 0;
        return 0;
    }
    if (!s->idle_since)
        s->idle_since = now;
    return now - s->idle_since >= IDLE_NS;
}

/* compose writes the rank's record from the threads' (the header says
 * when the rank is blocked); *chosen is the slot whose call and stack it
 * carries. 0 when a writer was busy: look again later. */
static int compose(struct mpidbg_blocked *out, struct slot **chosen)
{
    *chosen = NULL;
    memset(out, 0, sizeof *out);
    uint64_t sum = 0;
    if (__atomic_load_n(&too_many, __ATOMIC_RELAXED)) {
        out->seq = 2;
        return 1;
    }
    /* no thread inside a blocking call: nothing to compose, and no
     * thread's CPU time or system call to look at */
    int any = 0;
    for (int i = 1; i < NSLOT && !any; i++)
        any = __atomic_load_n(&slots[i].used, __ATOMIC_ACQUIRE) && __atomic_load_n(&slots[i].rec.active, __ATOMIC_RELAXED);
    if (!any) {
        out->seq = 2 * (__atomic_load_n(&generation, __ATOMIC_RELAXED) << 40) + 2;
        return 1;
    }
    int64_t now = mpidbg_mono_ns();
    int busy = 0, nact = 0, nwait = 0;
    struct mpidbg_wait waits[MPIDBG_WAIT_MAX];
    static struct mpidbg_blocked tmp; /* large; the reader holds read_mu */
    for (int i = 1; i < NSLOT; i++) {
        struct slot *s = &slots[i];
        if (!__atomic_load_n(&s->used, __ATOMIC_ACQUIRE))
            continue;
        if (!read_slot(s, &tmp))
            return 0;
        sum += tmp.seq;
        if (!tmp.active || (tmp.polling && !polls_only(s))) {
            if (!waiting(s, tmp.seq, now))
                busy = 1;
            continue;
        }
        tmp.polling = 0; /* a poller that only waits is blocked like a wait (the watcher asks no poll times) */
        s->last_ns = 0; /* blocked: what it does after the call is looked at afresh */
        if (!nact++) {
            *out = tmp;
            *chosen = s;
        } else {
            out->mode = MPIDBG_WAIT_OR;
        }
        int n = tmp.nwait < MPIDBG_WAIT_MAX ? tmp.nwait : MPIDBG_WAIT_MAX;
        for (int k = 0; k < n && nwait < MPIDBG_WAIT_MAX; k++)
            waits[nwait++] = tmp.wait[k];
        if (nact > 1)
            out->nwait += tmp.nwait;
    }
    uint64_t gen = __atomic_load_n(&generation, __ATOMIC_RELAXED);
    if (busy || !nact) {
        memset(out, 0, sizeof *out);
        *chosen = NULL;
    } else if (nact > 1) {
        memcpy(out->wait, waits, sizeof waits);
        out->nframes = 0;
        format_args(out);
    }
    out->seq = 2 * (sum / 2 + (gen << 40)) + 2;
    return 1;
}

int mpidbg_blocked_read(struct mpidbg_blocked *out)
{
    if (!mpidbg_mt)
        return read_slot(&slots[0], out);
    struct slot *chosen;
    pthread_mutex_lock(&read_mu);
    int ok = compose(out, &chosen);
    pthread_mutex_unlock(&read_mu);
    return ok;
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
            /* the collective's name only when it is not the blocked call itself (MPI_Wait on an MPI_Iallreduce) */
            if (w->call == b->call)
                p += snprintf(p, end - p, "%scollective #%llu", sep, (unsigned long long)w->coll_seq);
            else
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
    struct slot *s = &slots[0];
    uint64_t sseq = seq;
    if (mpidbg_mt) {
        static struct mpidbg_blocked c;
        pthread_mutex_lock(&read_mu);
        int ok = compose(&c, &s);
        pthread_mutex_unlock(&read_mu);
        if (!ok || c.seq != seq || !c.active || !s)
            return 0;
        sseq = __atomic_load_n(&s->rec.seq, __ATOMIC_ACQUIRE);
    }
    if (!(sseq % 2 == 0) || __atomic_load_n(&s->rec.seq, __ATOMIC_ACQUIRE) != sseq || !s->rec.active)
        return 0;
    format_args(&s->rec);
    if (!stack_sig)
        return 0;
    taken = 0;
    want = (sig_atomic_t)(sseq & 0x3fffffff);
    if (pthread_kill(s->owner, stack_sig) != 0) {
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
