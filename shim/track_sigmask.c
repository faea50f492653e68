/*
 * The program's signal masks, without SIGSEGV and SIGTRAP; its
 * alternate signal stacks and the jump buffers that save a mask, never
 * protected.
 *
 * The access tracker sees the program's accesses to watched pages as
 * SIGSEGV, and steps them with SIGTRAP. A fault with SIGSEGV blocked
 * never reaches a handler: the kernel ends the process (so does a
 * single-step trap with SIGTRAP blocked). Correct programs block every
 * signal: threads that leave SIGINT and SIGTERM to one that sigwait()s
 * for them (sigfillset, then pthread_sigmask), a handler installed with a
 * full sa_mask, sigsuspend with all but one signal blocked. Any of them
 * touching a page beside a pending receive buffer would die.
 *
 * So the kernel is never asked to block those two for the program. The
 * wrappers take them out of what they pass on (pthread_sigmask,
 * sigprocmask, sigsuspend, the masks of ppoll, pselect and epoll_pwait,
 * and sigaction's sa_mask), and remember what the program asked for, per
 * thread and per handler: the masks they give back (the old mask, the
 * old action) say what it asked, so a mask saved and set again means
 * what it meant. A thread the program starts gets its creator's (threads.c)
 * and runs with the two unblocked from its first instruction of the
 * program's, whatever mask it was created with; the main thread from the
 * shim's load.
 *
 * What the program can tell: a SIGSEGV or SIGTRAP sent with kill(2) or
 * raise() to a thread that blocked it is delivered instead of left
 * pending (few programs send themselves either); a crash in code that
 * blocked SIGSEGV ends the process as before, through the crash report
 * first; a mask restored by siglongjmp or setcontext is the one the
 * kernel had, without the two, whatever the program asked since.
 *
 * The shim's own calls (Go's runtime blocks every signal while it starts
 * a thread) pass unchanged, and so do the handlers for SIGSEGV and
 * SIGTRAP themselves (a program that installs its own SIGSEGV handler
 * turns the tracker off).
 *
 * A handler for a signal that the shim's runtime threads cannot block
 * (SIGCHLD, SIGPROF, SIGURG, SIGSTKFLT, SIGRTMIN) is installed with
 * SA_ONSTACK, and the old action given back says what the program asked.
 *
 * The program's alternate signal stacks (sigaltstack) are never
 * protected either: the kernel writes a signal's frame at the top of
 * one, and a program's 64 KiB stack from malloc shares its top page with
 * whatever comes next on the heap, a receive buffer as like as not. A
 * page there, protected, ended the process at the signal. Their pages
 * join the synchronisation objects' (track_sync.c), which are never
 * protected; those set up before the tracker starts, when it does.
 *
 * The sets the program passes and gets back may lie beside pending
 * buffers: read and written as the kernel would (track_sys.c), so an
 * old mask stored into a pending receive buffer is reported at the call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "shim.h"
#include "crash.h"
#include "track_int.h"

enum { ASK_SEGV = 1, ASK_TRAP = 2 };

/* what the thread asked to block of the two */
static __thread int asked __attribute__((tls_model("initial-exec")));
/* what each handler's sa_mask asked to block of the two */
static int act_asked[_NSIG];
/* the handlers given SA_ONSTACK that the program did not ask for */
static int act_onstack[_NSIG];

static struct mpidbg_text self;

typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);
static void *next_pthread_sigmask, *next_sigprocmask, *next_sigaction, *next_sigsuspend;

static int bits(const sigset_t *set)
{
    return (sigismember(set, SIGSEGV) == 1 ? ASK_SEGV : 0) | (sigismember(set, SIGTRAP) == 1 ? ASK_TRAP : 0);
}

static void strip(sigset_t *set)
{
    sigdelset(set, SIGSEGV);
    sigdelset(set, SIGTRAP);
}

static void add(sigset_t *set, int b)
{
    if (b & ASK_SEGV)
        sigaddset(set, SIGSEGV);
    if (b & ASK_TRAP)
        sigaddset(set, SIGTRAP);
}

static int from_self(const void *ra)
{
    return (uintptr_t)ra - self.lo < self.hi - self.lo;
}

const sigset_t *mpidbg_sig_usable(const sigset_t *set, sigset_t *tmp)
{
    if (!set || !bits(set))
        return set;
    *tmp = *set;
    strip(tmp);
    return tmp;
}

int mpidbg_sig_asked(void)
{
    return asked;
}

void mpidbg_sig_thread_start(int inherited)
{
    mask_fn real = (mask_fn)__atomic_load_n(&next_pthread_sigmask, __ATOMIC_ACQUIRE);
    sigset_t cur;
    if (!real || real(SIG_BLOCK, NULL, &cur) != 0)
        return;
    asked = inherited | bits(&cur);
    if (bits(&cur)) {
        sigset_t two;
        sigemptyset(&two);
        add(&two, ASK_SEGV | ASK_TRAP);
        real(SIG_UNBLOCK, &two, NULL);
    }
}

/* set_mask is pthread_sigmask and sigprocmask (real, which fails as it
 * does: an error number, or -1 and errno) called from ra. */
static int set_mask(mask_fn real, const void *ra, int how, const sigset_t *set, sigset_t *old)
{
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if ((!set && !old) || from_self(ra))
        return real(how, set, old);
    struct tr_sys s;
    int live = tr_sys_any();
    if (live) {
        tr_sys_begin(&s, ra);
        tr_sys_open(&s, set, set ? sizeof *set : 0);
        tr_sys_open(&s, old, old ? sizeof *old : 0);
    }
    sigset_t in, out;
    int want = 0;
    if (set) {
        in = *set;
        if (live)
            tr_sys_done(&s, set, sizeof *set, 0);
        want = bits(&in);
        strip(&in);
    }
    int before = asked;
    int rc = real(how, set ? &in : NULL, old ? &out : NULL);
    if (rc == 0) {
        if (set && how == SIG_BLOCK)
            asked |= want;
        else if (set && how == SIG_UNBLOCK)
            asked &= ~want;
        else if (set && how == SIG_SETMASK)
            asked = want;
        if (old) {
            add(&out, before);
            *old = out;
            if (live)
                tr_sys_done(&s, old, sizeof *old, 1);
        }
    }
    if (live)
        tr_sys_end(&s);
    return rc;
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    mask_fn real = (mask_fn)mpidbg_next_symbol(&next_pthread_sigmask, "pthread_sigmask");
    return set_mask(real, __builtin_return_address(0), how, set, old);
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    mask_fn real = (mask_fn)mpidbg_next_symbol(&next_sigprocmask, "sigprocmask");
    return set_mask(real, __builtin_return_address(0), how, set, old);
}

int sigsuspend(const sigset_t *mask)
{
    int (*real)(const sigset_t *) = (int (*)(const sigset_t *))mpidbg_next_symbol(&next_sigsuspend, "sigsuspend");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    sigset_t tmp;
    return real(from_self(__builtin_return_address(0)) ? mask : mpidbg_sig_usable(mask, &tmp));
}

/* runtime_open: the signals the shim's runtime threads cannot block
 * besides the synchronous ones (threads.c starts them with the rest
 * blocked). A handler for one of these may run on a runtime thread, on
 * a goroutine's stack of a few KiB unless the handler asks for the
 * thread's signal stack: so it is installed with SA_ONSTACK. On a
 * program thread it then runs on the thread's alternate stack if it has
 * one (the tracker gives a thread whose buffers it watches one of
 * 64 KiB). */
static int runtime_open(int sig)
{
    return sig == SIGCHLD || sig == SIGPROF || sig == SIGURG || sig == SIGSTKFLT || sig == SIGRTMIN;
}

/* onstack: whether the action a, about to be installed for sig, needs
 * SA_ONSTACK that the program did not ask for. */
static int onstack(int sig, const struct sigaction *a)
{
    return runtime_open(sig) && !(a->sa_flags & SA_ONSTACK) && a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    typedef int (*act_fn)(int, const struct sigaction *, struct sigaction *);
    act_fn real = (act_fn)mpidbg_next_symbol(&next_sigaction, "sigaction");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (sig == SIGSEGV || sig == SIGTRAP || sig <= 0 || sig >= _NSIG || from_self(__builtin_return_address(0)))
        return real(sig, act, old);
    struct sigaction a;
    const struct sigaction *pass = act;
    int want = 0, stack = 0;
    if (act) {
        a = *act;
        want = bits(&a.sa_mask);
        strip(&a.sa_mask);
        stack = onstack(sig, &a);
        if (stack)
            a.sa_flags |= SA_ONSTACK;
        if (want || stack)
            pass = &a;
    }
    int before = __atomic_load_n(&act_asked[sig], __ATOMIC_RELAXED);
    int added = __atomic_load_n(&act_onstack[sig], __ATOMIC_RELAXED);
    int rc = real(sig, pass, old);
    if (rc == 0) {
        if (old) {
            add(&old->sa_mask, before);
            if (added)
                old->sa_flags &= ~SA_ONSTACK;
        }
        if (act) {
            __atomic_store_n(&act_asked[sig], want, __ATOMIC_RELAXED);
            __atomic_store_n(&act_onstack[sig], stack, __ATOMIC_RELAXED);
        }
    }
    return rc;
}

/* signal() (also bsd_signal and ssignal), sysv_signal() (what signal()
 * is under strict ISO C) and sigset() reach the kernel through glibc's
 * own sigaction, not the one above. Each is called as the program asked
 * (its flags and its mask are glibc's: SA_RESTART unless siginterrupt()
 * said otherwise, one-shot for sysv_signal), then the action installed
 * is read back and, if it needs it, installed again with SA_ONSTACK.
 * Their masks never hold SIGSEGV or SIGTRAP unless that is the signal,
 * whose handler passes unchanged. A signal that arrives between the two
 * steps runs its handler without SA_ONSTACK, as before (with
 * sysv_signal's one-shot handler, the second step then installs it
 * again); another thread's sigaction for the same signal in between is
 * overwritten. */
typedef void (*handler_fn)(int);

static handler_fn installed(void **next, const char *name, int sig, handler_fn h, const void *ra)
{
    handler_fn (*real)(int, handler_fn) = (handler_fn(*)(int, handler_fn))mpidbg_next_symbol(next, name);
    if (!real) {
        errno = ENOSYS;
        return SIG_ERR;
    }
    if (sig == SIGSEGV || sig == SIGTRAP || sig <= 0 || sig >= _NSIG || h == SIG_HOLD || from_self(ra))
        return real(sig, h);
    typedef int (*act_fn)(int, const struct sigaction *, struct sigaction *);
    act_fn act = (act_fn)mpidbg_next_symbol(&next_sigaction, "sigaction");
    handler_fn prev = real(sig, h);
    if (prev == SIG_ERR || !act)
        return prev;
    int saved = errno, stack = 0;
    struct sigaction cur;
    if (act(sig, NULL, &cur) == 0 && onstack(sig, &cur)) {
        cur.sa_flags |= SA_ONSTACK;
        stack = act(sig, &cur, NULL) == 0;
    }
    __atomic_store_n(&act_asked[sig], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&act_onstack[sig], stack, __ATOMIC_RELAXED);
    errno = saved;
    return prev;
}

/* one wrapper per name glibc exports for the same installer */
#define INSTALLER(name)                                                      \
    static void *next_##name;                                                \
    handler_fn name(int sig, handler_fn h)                                   \
    {                                                                        \
        return installed(&next_##name, #name, sig, h, __builtin_return_address(0)); \
    }

INSTALLER(signal)
INSTALLER(bsd_signal)
INSTALLER(ssignal)
INSTALLER(sysv_signal)
INSTALLER(__sysv_signal)
INSTALLER(sigset)

/* Jump buffers that save the signal mask (track_twice.S for
 * __sigsetjmp): the kernel writes the mask into them at sigsetjmp and
 * reads it at siglongjmp, and fails with EFAULT on a protected page: a
 * handler left by siglongjmp would leave its signal blocked for good.
 * Their pages are never protected, as synchronisation objects'. */
__attribute__((visibility("hidden"))) void *mpidbg_next_sigsetjmp; /* glibc's __sigsetjmp */
__attribute__((visibility("hidden"))) void mpidbg_sigsetjmp_prepare(const void *env, int savemask);

static void jmpbuf_seen(const void *env)
{
    mpidbg_track_sync_object(env, sizeof(sigjmp_buf));
}

/* getcontext, swapcontext and setcontext (track_twice.S) pass the
 * context's uc_sigmask to the kernel (rt_sigprocmask), which answers
 * EFAULT on a protected page: the switch fails, and a coroutine runtime
 * that keeps each task's context beside its message buffers goes on in
 * the wrong task. Their contexts' pages are never protected either. */
__attribute__((visibility("hidden"))) void *mpidbg_next_getcontext, *mpidbg_next_swapcontext, *mpidbg_next_setcontext;
__attribute__((visibility("hidden"))) void mpidbg_ucontext_prepare(void **next, const char *name, const void *a,
                                                                   const void *b);

/* found: glibc's function after an assembly wrapper's, which cannot go
 * on without it (a constructor of another library may call it before the
 * shim's constructor looked it up) */
static void found(void **next, const char *name)
{
    if (!mpidbg_next_symbol(next, name)) {
        static const char msg[] = "mpidbg: a function of glibc's that the shim wraps is not found\n";
        (void)!write(2, msg, sizeof msg - 1);
        abort();
    }
}

void mpidbg_ucontext_prepare(void **next, const char *name, const void *a, const void *b)
{
    int e = errno;
    found(next, name);
    if (a)
        mpidbg_track_sync_object(a, sizeof(ucontext_t));
    if (b)
        mpidbg_track_sync_object(b, sizeof(ucontext_t));
    errno = e;
}

/* before glibc's __sigsetjmp: found, and the buffer's pages never
 * protected when it saves the mask */
void mpidbg_sigsetjmp_prepare(const void *env, int savemask)
{
    found(&mpidbg_next_sigsetjmp, "__sigsetjmp");
    if (savemask)
        jmpbuf_seen(env);
}

static void *next_siglongjmp, *next_longjmp, *next_longjmp_chk;

__attribute__((noreturn)) static void jump(void **cache, const char *name, sigjmp_buf env, int val)
{
    void (*real)(sigjmp_buf, int) = (void (*)(sigjmp_buf, int))mpidbg_next_symbol(cache, name);
    if (env[0].__mask_was_saved)
        jmpbuf_seen(env);
    mpidbg_in_own_handler = 0; /* perhaps out of the program's fatal-signal handler (crash.c) */
    if (!real)
        abort();
    real(env, val);
    abort(); /* real does not return */
}

void siglongjmp(sigjmp_buf env, int val)
{
    jump(&next_siglongjmp, "siglongjmp", env, val);
}

void longjmp(jmp_buf env, int val)
{
    jump(&next_longjmp, "longjmp", env, val);
}

void __longjmp_chk(sigjmp_buf env, int val)
{
    jump(&next_longjmp_chk, "__longjmp_chk", env, val);
}

#define ALTSTACKS 256
static struct {
    const void *sp;
    size_t size;
} alts[ALTSTACKS];
static int nalts; /* atomic: slots claimed */

static void *next_sigaltstack;

int sigaltstack(const stack_t *ss, stack_t *old)
{
    int (*real)(const stack_t *, stack_t *) =
        (int (*)(const stack_t *, stack_t *))mpidbg_next_symbol(&next_sigaltstack, "sigaltstack");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (ss && !(ss->ss_flags & SS_DISABLE) && ss->ss_sp && ss->ss_size && !from_self(__builtin_return_address(0))) {
        if (__atomic_load_n(&mpidbg_track_on, __ATOMIC_ACQUIRE)) {
            mpidbg_track_sync_object(ss->ss_sp, ss->ss_size);
        } else {
            int i = __atomic_fetch_add(&nalts, 1, __ATOMIC_ACQ_REL);
            if (i < ALTSTACKS) {
                alts[i].sp = ss->ss_sp;
                alts[i].size = ss->ss_size;
            }
        }
    }
    return real(ss, old);
}

void tr_altstacks_known(void)
{
    int n = __atomic_load_n(&nalts, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n && i < ALTSTACKS; i++)
        mpidbg_track_sync_object(alts[i].sp, alts[i].size);
}

/* At the shim's load: the functions, the shim's own code, and the main
 * thread's mask (a launcher may have started the rank with the two
 * blocked). */
__attribute__((constructor)) static void sigmask_init(void)
{
    mpidbg_next_symbol(&next_pthread_sigmask, "pthread_sigmask");
    mpidbg_next_symbol(&next_sigprocmask, "sigprocmask");
    mpidbg_next_symbol(&next_sigaction, "sigaction");
    mpidbg_next_symbol(&next_sigsuspend, "sigsuspend");
    mpidbg_next_symbol(&next_sigaltstack, "sigaltstack");
    mpidbg_next_symbol(&mpidbg_next_sigsetjmp, "__sigsetjmp");
    mpidbg_next_symbol(&mpidbg_next_getcontext, "getcontext");
    mpidbg_next_symbol(&mpidbg_next_swapcontext, "swapcontext");
    mpidbg_next_symbol(&mpidbg_next_setcontext, "setcontext");
    mpidbg_next_symbol(&next_siglongjmp, "siglongjmp"); /* not in a handler, where they run */
    mpidbg_next_symbol(&next_longjmp, "longjmp");
    mpidbg_next_symbol(&next_longjmp_chk, "__longjmp_chk");
    /* a crash handler may call signal(SIGSEGV, SIG_DFL) first of all:
     * no dlsym there */
    mpidbg_next_symbol(&next_signal, "signal");
    mpidbg_next_symbol(&next_bsd_signal, "bsd_signal");
    mpidbg_next_symbol(&next_ssignal, "ssignal");
    mpidbg_next_symbol(&next_sysv_signal, "sysv_signal");
    mpidbg_next_symbol(&next___sysv_signal, "__sysv_signal");
    mpidbg_next_symbol(&next_sigset, "sigset");
    self = mpidbg_text_of((uintptr_t)&sigmask_init);
    mpidbg_sig_thread_start(0);
}
