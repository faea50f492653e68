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
 * A fault in the shim itself (Go code or C) goes to the handler that was
 * installed before ours, as before: Go turns a fault in Go code into a
 * panic. The race tracker's SIGSEGV handler (track_fault.c) is installed
 * after this one and passes on what is not its own, so its faults never
 * reach this handler.
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
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <ucontext.h>
#include <unistd.h>

#include "shim.h"
#include "crash.h"

static const int crash_sigs[CRASH_NSIG] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction before_go[CRASH_NSIG]; /* the process's handlers before the Go runtime started */
static int before_go_taken;
static struct sigaction in_front[CRASH_NSIG]; /* what was installed when ours was */
static struct sigaction handover[CRASH_NSIG]; /* where a signal from the program goes after the report */
static int installed;
static int crash_fd = -1;
static int crashing; /* the first crash reports; others only hand over */
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
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
        if (si->si_code <= 0)
            raise(sig);
    }
}

static void on_crash(int sig, siginfo_t *si, void *ctx)
{
    int i = sig_index(sig);
    if (i < 0)
        return;
    uint64_t pc = context_pc(ctx);
    int fault = si->si_code > 0 && sig != SIGABRT;
    if (fault && pc - self_lo < self_hi - self_lo) {
        call(&in_front[i], sig, si, ctx); /* the shim's own: Go's handler, or whoever was first */
        return;
    }
    if (!__atomic_exchange_n(&crashing, 1, __ATOMIC_ACQ_REL)) {
        __atomic_store_n(&mpidbg_crashed, 1, __ATOMIC_RELEASE);
        report(sig, si, pc, fault);
    }
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

void mpidbg_crash_init(int fd)
{
    if (installed)
        return;
    dl_iterate_phdr(mods_cb, NULL);
    struct mpidbg_text t = mpidbg_text_of((uintptr_t)&mpidbg_crash_init);
    self_lo = t.lo;
    self_hi = t.hi;
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
