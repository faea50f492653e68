/*
 * A rank's fatal signals: SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT.
 * The shim tells mpidbg where the program crashed (the faulting
 * instruction and the frames above it, as module and offset), then lets
 * the signal take the course it would have taken without mpidbg, so the
 * rank still dies of the same signal.
 *
 * Why not leave it to the handlers there are: the Go runtime of this
 * library installs its own handlers for SIGSEGV, SIGBUS and SIGFPE when
 * the library is loaded and passes a signal from non-Go code on to the
 * handler it replaced (MPICH's UCX, which prints a backtrace) from Go's
 * signal frames, which no C unwinder crosses: the backtrace UCX printed
 * stopped in the shim and the program's frames were lost. So the handler
 * the signal goes on to (the handover) is the one the process had before
 * the Go runtime started, saved by a constructor that runs before it
 * (priority constructors come before the Go runtime's in .init_array);
 * or, when MPI installed its own after the Go runtime (Open MPI, during
 * MPI_Init), that one. After reporting, the handler puts the handover in
 * place and returns: a fault re-executes the instruction, which faults
 * again into the handover with the original context (so MPI's and the
 * kernel's backtraces show the program's frames); a signal sent (abort,
 * kill) is raised again and delivered when this handler returns.
 *
 * When the handler to hand over to is the program's own (installed
 * before MPI_Init, neither the default, nor ignored, nor MPI's, nor Go's),
 * this handler calls it instead, and stays installed: a program may
 * handle a fault and go on (a memory probe that returns with
 * siglongjmp), and a later real crash must still be reported. Putting the
 * program's handler in place for the re-executed instruction would lose
 * ours for good, since the program's handler never puts it back. The
 * report sent before the call is provisional: the report ignores it when
 * the rank later says Bye or Exit.
 *
 * A fault in the shim itself (Go code or C) goes to the handler that was
 * installed when ours was: the Go runtime's, which turns a fault in Go
 * code into a panic, or MPI's when MPI installed its own after the Go
 * runtime (Open MPI, during MPI_Init). The race tracker's SIGSEGV handler
 * (track_fault.c) is installed after this one and passes on what is not
 * its own, so its faults never reach this handler.
 *
 * Only the process that called MPI_Init reports: a child forked after it
 * inherits the handlers and the descriptor, and must not speak for the
 * rank (the descriptor is closed in the child at fork).
 *
 * Several threads may fault at once (OpenMP threads on the same bad
 * pointer): the first reports; the others wait (a bounded sleep) until
 * its report is sent before they hand over, or the process would die of
 * the second before the first's report left.
 *
 * Async-signal-safe: the module table is taken at MPI_Init; the message
 * is formatted by hand into a static buffer and written with send(2) on
 * a copy of the launcher connection's descriptor (crash_report_fd);
 * backtrace(3) was primed at install time (libgcc_s loaded then).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "shim.h"
#include "crash.h"

static const int crash_sigs[CRASH_NSIG] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction before_go[CRASH_NSIG]; /* the process's handlers before the Go runtime started */
static int before_go_taken;
static struct sigaction in_front[CRASH_NSIG]; /* what was installed when ours was */
static struct sigaction handover[CRASH_NSIG]; /* where a signal from the program goes after the report */
static struct sigaction at_init[CRASH_NSIG]; /* the program's at MPI_Init's entry */
static int at_init_taken;
static int own[CRASH_NSIG]; /* the handover is the program's own handler: called, not put in place */
static int installed;
static int crash_fd = -1;
static pid_t crash_pid; /* the process that called MPI_Init */
/* Who uses msg: FREE; BUSY while a thread reports a crash the program may
 * survive; DOWN once a thread reports the crash the process dies of
 * (then no one else reports). */
enum { FREE, BUSY, DOWN };
static int crashing;
static int reported; /* DOWN's report was sent */
int mpidbg_crashed;

__attribute__((constructor(101))) static void crash_before_go(void)
{
    for (int i = 0; i < CRASH_NSIG; i++)
        sigaction(crash_sigs[i], NULL, &before_go[i]);
    before_go_taken = 1;
}

/* ---- the loaded modules, taken at MPI_Init ---- */
#define MAXMOD 512
#define NAMES (64 * 1024)
static struct {
    uint64_t lo, hi, bias;
    int name; /* offset in names */
} mods[MAXMOD];
static int nmods;
static char names[NAMES];
static int nnames;
static uint64_t self_lo, self_hi;

static int mods_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    char path[4096];
    const char *n = info->dlpi_name;
    if (!n || !*n) {
        ssize_t k = readlink("/proc/self/exe", path, sizeof path - 1);
        path[k > 0 ? k : 0] = 0;
        n = path;
    } else if (realpath(n, path))
        n = path;
    if (!*n)
        return 0;
    int len = (int)strlen(n) + 1, at = -1;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || nmods >= MAXMOD)
            continue;
        if (at < 0) {
            if (nnames + len > NAMES)
                return 0;
            memcpy(names + nnames, n, len);
            at = nnames;
            nnames += len;
        }
        mods[nmods].lo = info->dlpi_addr + ph->p_vaddr;
        mods[nmods].hi = mods[nmods].lo + ph->p_memsz;
        mods[nmods].bias = info->dlpi_addr;
        mods[nmods].name = at;
        nmods++;
    }
    return 0;
}

static int mod_of(uint64_t pc)
{
    for (int i = 0; i < nmods; i++)
        if (pc - mods[i].lo < mods[i].hi - mods[i].lo)
            return i;
    return -1;
}

/* ---- formatting by hand ---- */
struct out {
    char *b;
    int n, cap;
    int full; /* something did not fit: the message would be malformed */
};

static void put(struct out *o, const char *s)
{
    while (*s && o->n < o->cap)
        o->b[o->n++] = *s++;
    if (*s)
        o->full = 1;
}

static void put_u(struct out *o, uint64_t v)
{
    char d[24];
    int k = 0;
    do {
        d[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k > 0 && o->n < o->cap)
        o->b[o->n++] = d[--k];
    if (k > 0)
        o->full = 1;
}

static void put_i(struct out *o, int64_t v)
{
    if (v < 0) {
        put(o, "-");
        put_u(o, (uint64_t)(-(v + 1)) + 1);
    } else
        put_u(o, (uint64_t)v);
}

static void put_str(struct out *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    put(o, "\"");
    for (; *s && o->n + 6 < o->cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            o->b[o->n++] = '\\';
            o->b[o->n++] = (char)c;
        } else if (c < 0x20) {
            char e[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
            put(o, e);
        } else
            o->b[o->n++] = (char)c;
    }
    if (*s)
        o->full = 1;
    put(o, "\"");
}

/* put_site writes a site as checks.Site's JSON: ra is a return address
 * (the report looks up ra - 1). */
static void put_site(struct out *o, uint64_t ra)
{
    int m = mod_of(ra - 1);
    put(o, "{");
    if (m >= 0) {
        put(o, "\"module\":");
        put_str(o, names + mods[m].name);
        put(o, ",\"offset\":");
        put_u(o, ra - mods[m].bias);
    } else {
        put(o, "\"offset\":");
        put_u(o, ra);
    }
    put(o, "}");
}

/* send_all writes the whole message, waiting up to about 2 s for room. */
static void send_all(int fd, const char *b, int n)
{
    int waited = 0;
    while (n > 0) {
        ssize_t k = send(fd, b, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k > 0) {
            b += k;
            n -= (int)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && errno == EAGAIN && waited < 20) {
            struct pollfd p = {fd, POLLOUT, 0};
            poll(&p, 1, 100);
            waited++;
            continue;
        }
        return;
    }
}

#define STACK 32
#define SITES 16
static char msg[16 * 1024];

static uint64_t context_pc(void *ctx)
{
    ucontext_t *uc = ctx;
#if defined(__x86_64__)
    return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uint64_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

/* report sends the Crash message. pc is where the signal interrupted the
 * thread: for a fault, the faulting instruction; for a signal sent, the
 * instruction after the system call that sent it, in the C library. */
static void report(int sig, siginfo_t *si, uint64_t pc, int fault)
{
    int fd = __atomic_load_n(&crash_fd, __ATOMIC_ACQUIRE);
    if (fd < 0)
        return;
    void *bt[STACK];
    int n = backtrace(bt, STACK), at = -1;
    for (int i = 0; i < n; i++)
        if (pc && (uint64_t)(uintptr_t)bt[i] == pc) {
            at = i; /* the interrupted frame: the unwinder crossed the signal frame */
            break;
        }
    if (at < 0) /* past this handler's own frames, at least */
        for (at = 0; at < n && (uint64_t)(uintptr_t)bt[at] - self_lo < self_hi - self_lo; at++)
            ;
    int saved = errno;
    struct out o = {msg, 0, (int)sizeof msg, 0};
    /* a newline first: another thread may have left a line unfinished */
    put(&o, "\n{\"kind\":\"crash\",\"crash\":{\"rank\":");
    put_i(&o, mpidbg_world_rank);
    put(&o, ",\"pid\":");
    put_i(&o, getpid());
    put(&o, ",\"signal\":");
    put_i(&o, sig);
    put(&o, ",\"code\":");
    put_i(&o, si->si_code);
    if (fault) {
        put(&o, ",\"addr\":");
        put_u(&o, (uint64_t)(uintptr_t)si->si_addr);
    }
    put(&o, ",\"stack\":[");
    int k = 0, from = at;
    if (fault && pc) {
        put_site(&o, pc + 1); /* the faulting instruction, as if it were a return address */
        k++;
        if (at < n && (uint64_t)(uintptr_t)bt[at] == pc)
            from = at + 1;
    }
    /* a frame names its module: stop while a long path still fits */
    for (int i = from; i < n && k < SITES && o.cap - o.n > 4200; i++, k++) {
        if (k > 0)
            put(&o, ",");
        put_site(&o, (uint64_t)(uintptr_t)bt[i]);
    }
    put(&o, "]}}\n");
    if (!o.full) /* a message cut short would be malformed */
        send_all(fd, msg, o.n);
    errno = saved;
}

static int sig_index(int sig)
{
    for (int i = 0; i < CRASH_NSIG; i++)
        if (crash_sigs[i] == sig)
            return i;
    return -1;
}

static void to_default(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
}

static void call(const struct sigaction *h, int sig, siginfo_t *si, void *ctx)
{
    if (h->sa_flags & SA_SIGINFO) {
        if (h->sa_sigaction)
            h->sa_sigaction(sig, si, ctx);
    } else if (h->sa_handler != SIG_DFL && h->sa_handler != SIG_IGN)
        h->sa_handler(sig);
    else {
        /* the default action: a fault happens again when we return, a
         * signal sent is raised again */
        to_default(sig);
        if (si->si_code <= 0)
            raise(sig);
    }
}

/* nap sleeps 10 ms; nap's callers give up after about 3 s (a stuck
 * send must not keep the process from dying). */
#define NAPS 300
static void nap(void)
{
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* take makes this thread the one that reports (crashing = to), waiting
 * while another reports a crash the program may survive; 0 when another
 * reports the process's end, or after the wait. */
static int take(int to)
{
    for (int k = 0; k < NAPS; k++) {
        int want = FREE;
        if (__atomic_compare_exchange_n(&crashing, &want, to, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return 1;
        if (want == DOWN)
            return 0;
        nap();
    }
    return 0;
}

static void wait_reported(void)
{
    for (int k = 0; k < NAPS && !__atomic_load_n(&reported, __ATOMIC_ACQUIRE); k++)
        nap();
}

/* call_own runs the program's handler h as the kernel would have: with
 * its mask added (the signal itself is blocked already, in ours). It may
 * not return (siglongjmp restores the mask it saved). */
static void call_own(const struct sigaction *h, int sig, siginfo_t *si, void *ctx)
{
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &h->sa_mask, &old);
    if (h->sa_flags & SA_SIGINFO)
        h->sa_sigaction(sig, si, ctx);
    else
        h->sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

__thread unsigned mpidbg_in_own_handler __attribute__((tls_model("initial-exec")));

static void on_crash(int sig, siginfo_t *si, void *ctx)
{
    int i = sig_index(sig);
    if (i < 0)
        return;
    uint64_t pc = context_pc(ctx);
    int fault = si->si_code > 0 && sig != SIGABRT;
    if (fault && pc - self_lo < self_hi - self_lo) {
        call(&in_front[i], sig, si, ctx); /* the shim's own: Go's handler, MPI's, or whoever was first */
        return;
    }
    int speak = getpid() == crash_pid; /* not a forked child */
    /* The program's handler faulted with its own signal. Natively that
     * signal is blocked while the handler runs (unless SA_NODEFER), and
     * the kernel ends the process; here the access tracker's handler,
     * which must leave SIGSEGV open, passed it on. So it ends the
     * process, reported, instead of entering the handler again. */
    int nested = (mpidbg_in_own_handler & (1u << i)) && !(handover[i].sa_flags & SA_NODEFER);
    if (own[i] && !nested) {
        if (speak && take(BUSY)) {
            report(sig, si, pc, fault); /* provisional: the program may survive it */
            __atomic_store_n(&crashing, FREE, __ATOMIC_RELEASE);
        }
        mpidbg_in_own_handler |= 1u << i;
        call_own(&handover[i], sig, si, ctx);
        mpidbg_in_own_handler &= ~(1u << i);
        return; /* a fault: the instruction runs again, as after the program's handler natively */
    }
    if (speak) {
        if (take(DOWN)) {
            __atomic_store_n(&mpidbg_crashed, 1, __ATOMIC_RELEASE);
            report(sig, si, pc, fault);
            __atomic_store_n(&reported, 1, __ATOMIC_RELEASE);
        } else
            wait_reported();
    }
    if (nested)
        to_default(sig);
    else
        sigaction(sig, &handover[i], NULL);
    if (!fault)
        raise(sig); /* blocked in this handler: delivered when it returns */
    /* a fault: the instruction runs again and faults into the handover */
}

static int in_self(const struct sigaction *h)
{
    uint64_t a = (h->sa_flags & SA_SIGINFO) ? (uint64_t)(uintptr_t)h->sa_sigaction : (uint64_t)(uintptr_t)h->sa_handler;
    return a - self_lo < self_hi - self_lo;
}

static int same_handler(const struct sigaction *a, const struct sigaction *b)
{
    return (uintptr_t)a->sa_sigaction == (uintptr_t)b->sa_sigaction;
}

/* is_own says h is the program's own handler: there at MPI_Init's entry
 * but not when the library was loaded (MPI's network layers install
 * theirs then, MPI_Init's are not there yet), and neither the default,
 * ignored, nor the shim's (Go's). A one-shot handler (SA_RESETHAND) is
 * put in place as the kernel would. */
static int is_own(int i, const struct sigaction *h)
{
    if (!at_init_taken || !same_handler(h, &at_init[i]) || in_self(h) || (h->sa_flags & SA_RESETHAND))
        return 0;
    if (before_go_taken && same_handler(h, &before_go[i]))
        return 0;
    return h->sa_handler != SIG_DFL && h->sa_handler != SIG_IGN;
}

/* after_fork: a child forked after MPI_Init does not speak for the rank. */
static void after_fork(void)
{
    int fd = __atomic_exchange_n(&crash_fd, -1, __ATOMIC_ACQ_REL);
    if (fd >= 0)
        close(fd);
}

/* ucx_keeps_off: UCX takes the error signals (UCX_ERROR_SIGNALS: SIGILL,
 * SIGSEGV, SIGBUS, SIGFPE) when it starts, and its handler prints a
 * backtrace and ends the process without calling the one before it. A
 * rank of Open MPI that would not load UCX does under the tracker (its
 * one-sided component, track.c): a SIGSEGV handler the program installed
 * before MPI_Init, one that unprotects a page of its own, was never
 * called again. So UCX is told to leave alone the signals the program
 * handles itself, unless the user chose them. */
static void ucx_keeps_off(void)
{
#ifdef OPEN_MPI
    if (!mpidbg_track_chose_osc || getenv("UCX_ERROR_SIGNALS"))
        return;
    static const struct {
        int sig;
        const char *name;
    } ucx_default[] = {{SIGILL, "ILL"}, {SIGSEGV, "SEGV"}, {SIGBUS, "BUS"}, {SIGFPE, "FPE"}};
    char list[64] = "";
    int own = 0;
    for (size_t k = 0; k < sizeof ucx_default / sizeof ucx_default[0]; k++) {
        int i = 0;
        while (i < CRASH_NSIG && crash_sigs[i] != ucx_default[k].sig)
            i++;
        if (i < CRASH_NSIG && is_own(i, &at_init[i])) {
            own = 1;
            continue;
        }
        if (list[0])
            strcat(list, ",");
        strcat(list, ucx_default[k].name);
    }
    if (own)
        setenv("UCX_ERROR_SIGNALS", list, 0);
#endif
}

void mpidbg_crash_before_init(void)
{
    struct mpidbg_text t = mpidbg_text_of((uintptr_t)&mpidbg_crash_before_init);
    self_lo = t.lo; /* the Go runtime's handlers are the shim's, not the program's */
    self_hi = t.hi;
    for (int i = 0; i < CRASH_NSIG; i++)
        sigaction(crash_sigs[i], NULL, &at_init[i]);
    at_init_taken = 1;
    ucx_keeps_off();
}

void mpidbg_crash_init(int fd)
{
    if (installed)
        return;
    crash_pid = getpid();
    pthread_atfork(NULL, NULL, after_fork);
    dl_iterate_phdr(mods_cb, NULL); /* self_lo, self_hi: at MPI_Init's entry (mpidbg_crash_before_init) */
    void *prime[2];
    backtrace(prime, 2); /* loads libgcc_s now, not in a signal handler */
    __atomic_store_n(&crash_fd, fd, __ATOMIC_RELEASE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_crash;
    for (int i = 0; i < CRASH_NSIG; i++) {
        if (sigaction(crash_sigs[i], NULL, &in_front[i]) != 0)
            continue;
        if (!(in_front[i].sa_flags & SA_SIGINFO) && in_front[i].sa_handler == SIG_IGN)
            continue; /* the program ignores it: so do we */
        handover[i] = in_front[i];
        if (in_self(&in_front[i]) && before_go_taken && !in_self(&before_go[i]))
            handover[i] = before_go[i]; /* past Go's forwarding frames */
        own[i] = is_own(i, &handover[i]);
        sigaction(crash_sigs[i], &sa, NULL);
    }
    installed = 1;
}

/* mpidbg_crash_fini stops the reports: the launcher connection is about
 * to close (MPI_Finalize). A crash after it still hands over. */
void mpidbg_crash_fini(void)
{
    int fd = __atomic_exchange_n(&crash_fd, -1, __ATOMIC_ACQ_REL);
    if (fd >= 0)
        close(fd);
}
