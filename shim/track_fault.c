/*
 * The tracker's signal handlers. SIGSEGV with SEGV_ACCERR on a page the
 * tracker knows is its own; everything else goes to the handler that was
 * installed before (crash.c's, which reports a crash and hands it on).
 *
 * A fault is one of:
 *   - the library's: this thread is inside a wrapper (mpidbg_depth > 0),
 *     or the faulting instruction is code of MPI, UCX or the shim (their
 *     own threads). An access to a range's bytes marks the range moved;
 *     the run of watched pages around the fault opens until the next
 *     wrapper exit protects it again. Never reported. A page the library
 *     faults on too often while its ranges last is left open for their
 *     rest (lost precision, counted);
 *   - the program's, on a watched byte, of a kind the range forbids: the
 *     access is queued for a report, the range stops being watched (one
 *     report per operation), and the access proceeds;
 *   - in log mode: the access is recorded and stepped over;
 *   - a false hit (another byte of a watched page): the page opens for
 *     one instruction, which runs with the trap flag set; the SIGTRAP
 *     handler protects it again. A page with too many false hits stays
 *     open until the next wrapper exit.
 *
 * Async-signal-safe: no locks, no allocation, no Go; atomics, mprotect,
 * and the thread's own TLS (which the tracker never protects).
 *
 * Never fatal (docs/races.md, "The fault handler"): the handler touches
 * no memory the tracker may protect (track_int.h), and a fault is passed
 * on to the previous handler only when it cannot be the tracker's: its
 * page is not in the table, was not in it before the last rebuild, and
 * the same access faulted again with no protection changed by the
 * tracker in between.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "shim.h"
#include "track_int.h"

#define FALSE_HIT_LIMIT 32 /* false hits on a page before it opens until the next wrapper exit */
#define LIB_FAULT_LIMIT 32 /* library faults on watched bytes of a page before it opens until its ranges end */
#define LIB_FALSE_LIMIT 2  /* library faults on other bytes of a page, the same */
#define OPEN_RUN_MAX (256 * TR_PAGE)

static struct sigaction old_segv, old_trap;

/* ---- code that belongs to the library ---- */
#define MAX_LIB 256 /* Open MPI loads dozens of components */
static struct {
    uint64_t lo, hi;
} lib_text[MAX_LIB], libc_text[4];
static int nlib, nlibc;

static int name_is_lib(const char *n)
{
    /* libopen-pal holds Open MPI's data movement (its convertor copies
     * into the program's buffers), libopen-rte its runtime, the mca_
     * components (dlopen'ed by MPI_Init, mca_<framework>_<name>.so) its
     * transports, whose reads from sockets into receive buffers
     * track_sys.c sees, and libmca_common_*.so their shared code; those
     * by the file's name, not its directory (a program in ~/mca_sim/) */
    static const char *const pats[] = {"libmpi", "libuc", "/ucx/", "libhwloc", "libpmi", "libfabric", "libpsm",
                                       "libmpidbg", "libnuma", "libxpmem", "libknem", "libopen-", NULL};
    for (int i = 0; pats[i]; i++)
        if (strstr(n, pats[i]))
            return 1;
    const char *base = strrchr(n, '/');
    base = base ? base + 1 : n;
    return strncmp(base, "mca_", 4) == 0 || strncmp(base, "libmca_", 7) == 0;
}

static int text_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const char *self = arg;
    const char *n = info->dlpi_name ? info->dlpi_name : "";
    int lib = name_is_lib(n) || (self && *n && strcmp(n, self) == 0);
    int libc = strstr(n, "/libc.so") != NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (lib && nlib < MAX_LIB) {
            lib_text[nlib].lo = lo;
            lib_text[nlib++].hi = hi;
        }
        if (libc && nlibc < 4) {
            libc_text[nlibc].lo = lo;
            libc_text[nlibc++].hi = hi;
        }
    }
    return 0;
}

int tr_pc_is_lib(uint64_t pc)
{
    for (int i = 0; i < nlib; i++)
        if (pc - lib_text[i].lo < lib_text[i].hi - lib_text[i].lo)
            return 1;
    return 0;
}

int tr_pc_is_libc(uint64_t pc)
{
    for (int i = 0; i < nlibc; i++)
        if (pc - libc_text[i].lo < libc_text[i].hi - libc_text[i].lo)
            return 1;
    return 0;
}

/* ---- the alternate signal stack ----
 * The kernel writes the signal frame on the thread's stack unless it has
 * an alternate one; a watched stack buffer may make that stack's page
 * inaccessible. Each thread that adds a range gets one if it has none. */
#define ALTSTACK (64 * 1024)
static __thread int alt_done __attribute__((tls_model("initial-exec")));

void tr_altstack(void)
{
    if (alt_done)
        return;
    alt_done = 1;
    stack_t old;
    if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE) && old.ss_size >= 16384)
        return;
    void *p = mmap(NULL, ALTSTACK + TR_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    tr_mprotect((uint64_t)(uintptr_t)p, TR_PAGE, PROT_NONE); /* guard */
    stack_t ss = {.ss_sp = (char *)p + TR_PAGE, .ss_size = ALTSTACK, .ss_flags = 0};
    sigaltstack(&ss, NULL);
}

/* ---- single-stepping past false hits ---- */
#define STEP_PAGES 4
static __thread struct {
    int n;
    uint64_t page[STEP_PAGES];
    /* trap flags set and not yet trapped: a program's signal handler
     * that interrupts a step and is stepped itself makes one trap end
     * both steps, and the interrupted instruction's own trap then finds
     * none (on_trap) */
    int owed;
} step __attribute__((tls_model("initial-exec")));

static int stepping(uint64_t page)
{
    for (int i = 0; i < step.n; i++)
        if (step.page[i] == page)
            return 1;
    return 0;
}

#define REPEAT_LIMIT 64
static __thread struct {
    uint64_t addr, pc;
    int n;
} last __attribute__((tls_model("initial-exec")));

/* ---- faults on pages the table does not hold ----
 * Such a fault is the program's own (a store to .rodata, a guard page),
 * or the tracker's after all: another thread gave the page its
 * protection back (and a rebuild took it out of the table) between the
 * fault and this handler, or a handler that raced with that rebuild
 * protected it again. Chaining the latter to the previous handler would
 * kill a correct program, so the access is retried first: a page that
 * was in the table before the last rebuild gets its protection back
 * here; any other retry that faults again at the same place, with no
 * protection changed by the tracker in between (tr_pgen), cannot be the
 * tracker's. */
#define UNKNOWN_TRIES 8
static __thread struct {
    uint64_t addr, pc, gen;
    int n;
} odd __attribute__((tls_model("initial-exec")));

/* retry_unknown: 1 to return and let the access run again, 0 to chain */
static int retry_unknown(uint64_t page, uint64_t addr, uint64_t pc)
{
    if (odd.addr != addr || odd.pc != pc) {
        odd.addr = addr;
        odd.pc = pc;
        odd.n = 0;
        odd.gen = ~0ull;
    }
    if (++odd.n > UNKNOWN_TRIES) {
        odd.addr = odd.pc = 0;
        return 0;
    }
    int orig = 0, was = tr_page_was(page, &orig);
    if (was < 0)
        return 1; /* a rebuild is under way: look again after it */
    if (was > 0 && odd.n == 1) {
        tr_mprotect(page, TR_PAGE, orig);
        if (tr_page_find(page)) /* watched again meanwhile: as the table says */
            tr_apply(page, page + TR_PAGE, 1);
        tr_stat(MPIDBG_TRS_MPROTECT);
        odd.gen = __atomic_load_n(&tr_pgen, __ATOMIC_SEQ_CST);
        return 1;
    }
    uint64_t gen = __atomic_load_n(&tr_pgen, __ATOMIC_SEQ_CST);
    if (gen == odd.gen) {
        odd.addr = odd.pc = 0;
        return 0;
    }
    odd.gen = gen;
    return 1;
}

static void chain(int sig, siginfo_t *si, void *ctx, const struct sigaction *old)
{
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction)
            old->sa_sigaction(sig, si, ctx);
        return;
    }
    if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
        /* the default action: a fault happens again when we return; a
         * signal sent by someone is raised again */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
        if (si->si_code <= 0 || sig == SIGTRAP)
            raise(sig);
        return;
    }
    old->sa_handler(sig);
}

/* open_run opens the run of watched pages around page (library access)
 * for the rest of the wrapper, one mprotect for all of it. */
static void open_run(uint64_t page)
{
    struct tr_page *p = tr_page_find(page);
    if (!p)
        return;
    int orig = p->orig;
    uint64_t lo = page, hi = page + TR_PAGE;
    while (hi - lo < OPEN_RUN_MAX) {
        struct tr_page *q = tr_page_find(hi);
        if (!q || q->orig != orig || __atomic_load_n(&q->cur, __ATOMIC_RELAXED) == orig)
            break;
        hi += TR_PAGE;
    }
    while (hi - lo < OPEN_RUN_MAX && lo > TR_PAGE) {
        struct tr_page *q = tr_page_find(lo - TR_PAGE);
        if (!q || q->orig != orig || __atomic_load_n(&q->cur, __ATOMIC_RELAXED) == orig)
            break;
        lo -= TR_PAGE;
    }
    for (uint64_t a = lo; a < hi; a += TR_PAGE) {
        struct tr_page *q = tr_page_find(a);
        if (q)
            __atomic_store_n(&q->cur, orig, __ATOMIC_RELAXED);
    }
    int e = errno;
    if (tr_mprotect(lo, hi - lo, orig) != 0 && hi - lo > TR_PAGE) {
        /* part of the run went (unmapped while watched): the faulting page
         * alone, though some of the others may have opened */
        tr_unseen(lo, hi);
        tr_mprotect(page, TR_PAGE, orig);
        lo = page;
        hi = page + TR_PAGE;
    }
    errno = e;
    tr_stat(MPIDBG_TRS_MPROTECT);
    tr_queue_open(lo, hi, 0);
}

/* the range holding addr whose mode forbids this access of the program,
 * else NULL; not pinned (find_pinned) */
static struct tr_range *find_range(uint64_t addr, int write)
{
    struct tr_range *hit = NULL;
    int n = __atomic_load_n(&tr_hwm, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        struct tr_range *r = &tr_ranges[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != R_ACTIVE)
            continue;
        if (!tr_in_range(r, addr))
            continue;
        if (r->mode != MPIDBG_TR_STORES || write) {
            if (!hit || (hit->mode == MPIDBG_TR_LOG && r->mode != MPIDBG_TR_LOG))
                hit = r;
        }
    }
    return hit;
}

/* find_pinned is find_range with the range pinned (tr_pin): NULL when
 * none holds addr, or when the ranges found kept going away */
static struct tr_range *find_pinned(uint64_t addr, int write)
{
    for (int i = 0; i < 4; i++) {
        struct tr_range *r = find_range(addr, write);
        if (!r)
            return NULL;
        if (!tr_pin(r))
            continue;
        /* its slot may hold another range by now */
        if (tr_in_range(r, addr) && (r->mode != MPIDBG_TR_STORES || write))
            return r;
        tr_unpin(r);
    }
    return NULL;
}

/* watched: whether an active range holds addr */
static int watched(uint64_t addr)
{
    int n = __atomic_load_n(&tr_hwm, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (__atomic_load_n(&tr_ranges[i].state, __ATOMIC_ACQUIRE) == R_ACTIVE && tr_in_range(&tr_ranges[i], addr))
            return 1;
    return 0;
}

/* lib_access: the library touched addr; returns 1 when a range holds it,
 * and marks every such range moved when it wrote */
static int lib_access(uint64_t addr, int write)
{
    int any = 0;
    int n = __atomic_load_n(&tr_hwm, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        struct tr_range *r = &tr_ranges[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != R_ACTIVE || !tr_in_range(r, addr))
            continue;
        if (!write)
            return 1;
        if (!tr_pin(r)) /* gone meanwhile: its slot may hold a new range already */
            continue;
        if (tr_in_range(r, addr)) {
            any = 1;
            __atomic_store_n(&r->moved, TR_MOVED, __ATOMIC_RELAXED);
        }
        tr_unpin(r);
    }
    return any;
}

/* ---- words the owners of ranges keep ----
 * mpidbg_tr_what.tag and .stalled point into the owner's memory (a
 * window's state, on the heap), which may share a page with a buffer the
 * tracker protects: the window memory itself, when it is small. A fault
 * inside this handler would be fatal, so such a page is opened the way a
 * step opens one, for the one access. (What still races with a writer
 * on another thread ends in a nested fault in the shim's code, which
 * SA_NODEFER lets through to this handler as a library access.) */

/* owner_page_shut: the page of an owner's word (q: its entry, NULL when
 * the tracker never watched it) must be opened for an access that needs
 * protection need; 0 when it is accessible as it is */
static int owner_page_shut(uint64_t page, const struct tr_page *q, int need)
{
    if (!q || stepping(page))
        return 0;
    return (tr_page_want(q) & need) != need || (__atomic_load_n(&q->cur, __ATOMIC_RELAXED) & need) != need;
}

static void owner_open(uint64_t page, struct tr_page *q)
{
    __atomic_fetch_add(&q->steppers, 1, __ATOMIC_SEQ_CST);
    tr_apply(page, page + TR_PAGE, 1);
}

static void owner_close(uint64_t page, struct tr_page *q)
{
    __atomic_fetch_sub(&q->steppers, 1, __ATOMIC_SEQ_CST);
    tr_apply(page, page + TR_PAGE, 1);
}

static uint64_t owner_load(const uint64_t *a)
{
    uint64_t page = (uint64_t)(uintptr_t)a & TR_PMASK;
    struct tr_page *q = tr_page_find(page);
    if (!owner_page_shut(page, q, PROT_READ))
        return __atomic_load_n(a, __ATOMIC_RELAXED);
    owner_open(page, q);
    uint64_t v = __atomic_load_n(a, __ATOMIC_RELAXED);
    owner_close(page, q);
    return v;
}

static void owner_store(int32_t *a, int32_t v)
{
    uint64_t page = (uint64_t)(uintptr_t)a & TR_PMASK;
    struct tr_page *q = tr_page_find(page);
    if (!owner_page_shut(page, q, PROT_READ | PROT_WRITE)) {
        __atomic_store_n(a, v, __ATOMIC_RELAXED);
        return;
    }
    owner_open(page, q);
    __atomic_store_n(a, v, __ATOMIC_RELAXED);
    owner_close(page, q);
}

int tr_program_access(struct tr_range *r, uint64_t pc, uint64_t at, uint64_t ra, int store)
{
    int st = R_ACTIVE;
    if (!__atomic_compare_exchange_n(&r->state, &st, R_OFF, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 0;
    tr_stat(MPIDBG_TRS_PROG_FAULTS);
    tr_queue_event(r, pc, at, ra, store, __atomic_load_n(&r->moved, __ATOMIC_RELAXED));
    int one = 1;
    if (__atomic_compare_exchange_n(&r->counted, &one, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        tr_update(r->plo, r->phi, r->mode, -1, 0);
    return 1;
}

int tr_log_slot(struct tr_range *r)
{
    uint32_t i = __atomic_fetch_add(&r->lognext, 1, __ATOMIC_RELAXED);
    if (r->log && i < r->logcap)
        return (int)i;
    __atomic_store_n(&r->loglost, 1, __ATOMIC_RELAXED);
    if (r->w.stalled)
        owner_store(r->w.stalled, 1);
    return -1;
}

void tr_log_fill(struct tr_range *r, int i, uint64_t addr, uint64_t pc, int store)
{
    struct mpidbg_tr_access *l = &r->log[i];
    l->addr = addr;
    l->pc = pc;
    l->clock = mpidbg_xr_clock;
    l->tcount = 0;
    l->tslot = 0;
    l->lclock = 0;
    if (mpidbg_tc_running()) {
        l->tcount = mpidbg_tc_tick(&l->tslot);
        l->lclock = mpidbg_tc_start_clock();
    }
    l->tag = r->w.tag ? owner_load(r->w.tag) : 0;
    l->write = store;
    __atomic_store_n(&l->pad, 1, __ATOMIC_RELEASE); /* written */
}

/* stall_logs tells the owners of the log-mode ranges on a page that the
 * page was left open (mpidbg_tr_what.stalled) */
static void stall_logs(uint64_t page)
{
    int n = __atomic_load_n(&tr_hwm, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        struct tr_range *r = &tr_ranges[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != R_ACTIVE || r->mode != MPIDBG_TR_LOG || !r->w.stalled)
            continue;
        if (!tr_pin(r))
            continue;
        if (r->mode == MPIDBG_TR_LOG && r->w.stalled && r->lo < page + TR_PAGE && r->hi > page)
            owner_store(r->w.stalled, 1);
        tr_unpin(r);
    }
}

/* the word at the stack pointer, when it can be read safely: the return
 * address of a leaf function (memcpy, memset) that faulted */
int tr_peek(uint64_t a, void *out, size_t n)
{
    struct iovec here = {out, n}, there = {(void *)(uintptr_t)a, n};
    return process_vm_readv(getpid(), &here, 1, &there, 1, 0) == (ssize_t)n;
}

static uint64_t stack_top(uint64_t sp)
{
    uint64_t v = 0;
    if (!sp || (sp & 7) || !tr_peek(sp, &v, sizeof v))
        return 0;
    return v;
}

static void start_step(struct tr_page *p, uint64_t page, ucontext_t *uc)
{
    /* No step: an instruction touching that many watched pages, or
     * interrupted code that blocks SIGTRAP (the program's signal handler
     * that interrupted the SIGTRAP handler, code that blocks every
     * signal), where the step's trap would end the process. The page
     * stays open until the next exit instead. */
    if (step.n >= STEP_PAGES || sigismember(&uc->uc_sigmask, SIGTRAP) == 1) {
        __atomic_store_n(&p->giveup, 1, __ATOMIC_RELAXED);
        tr_apply(page, page + TR_PAGE, 1);
        tr_queue_open(page, page + TR_PAGE, 0);
        return;
    }
    step.page[step.n++] = page;
    __atomic_fetch_add(&p->steppers, 1, __ATOMIC_RELAXED);
    tr_apply(page, page + TR_PAGE, 1);
    if (!(uc->uc_mcontext.gregs[REG_EFL] & 0x100))
        step.owed++;
    uc->uc_mcontext.gregs[REG_EFL] |= 0x100; /* TF */
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    if (si->si_code != SEGV_ACCERR) {
        chain(sig, si, ctx, &old_segv);
        return;
    }
    int e = errno;
    uint64_t addr = (uint64_t)(uintptr_t)si->si_addr, page = addr & TR_PMASK;
    uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    struct tr_page *p = tr_page_find(page);
    if (!p) {
        int again = retry_unknown(page, addr, pc);
        errno = e;
        if (!again)
            chain(sig, si, ctx, &old_segv);
        return;
    }
    int write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    /* an access that the page's own protection forbids (the program made
     * it read-only itself, track_mprotect.c) is not the tracker's, the
     * library's included: the program's handler, or the default, as
     * without the tracker */
    if (!(p->orig & (write ? PROT_WRITE : PROT_READ))) {
        errno = e;
        chain(sig, si, ctx, &old_segv);
        return;
    }

    /* A Fortran binding's own stores after the C call returned (ierror,
     * a request or status converted back) land on the program's stack,
     * often on a watched page: stepped past as a false hit below, so the
     * page stays watched for the program's next access. The binding's
     * touches of watched bytes are the library's. */
    int binding_store = mpidbg_depth == 0 && mpidbg_nbind && mpidbg_in_binding(pc) && !watched(addr);
    if (mpidbg_depth > 0 || (tr_pc_is_lib(pc) && !binding_store)) {
        /* the library (or the shim) moving data */
        tr_stat(MPIDBG_TRS_LIB_FAULTS);
        int any = lib_access(addr, write);
        /* the library touching other data on the page (its own, the shim's, malloc's) costs a fault per
         * call and tells nothing: after a few, the page is left open while its ranges last */
        int lim = any ? LIB_FAULT_LIMIT : LIB_FALSE_LIMIT;
        if (__atomic_add_fetch(any ? &p->lib : &p->libfalse, 1, __ATOMIC_RELAXED) > lim && !p->lost) {
            __atomic_store_n(&p->lost, 1, __ATOMIC_RELAXED);
            tr_stat(MPIDBG_TRS_LOST_PAGES);
            tr_apply(page, page + TR_PAGE, 1);
            tr_unseen(page, page + TR_PAGE);
            stall_logs(page);
        } else {
            open_run(page);
        }
        mpidbg_track_dirty = 1;
        errno = e;
        return;
    }

    /* The program's same access faulting again and again, with no step
     * or MPI call in between, means the page's state and its real
     * protection disagree: open it for good while its ranges last; if even
     * that does not help, the fault was never the tracker's. */
    if (addr == last.addr && pc == last.pc) {
        if (++last.n > REPEAT_LIMIT) {
            last.n = 0;
            errno = e;
            chain(sig, si, ctx, &old_segv);
            return;
        }
        if (last.n > REPEAT_LIMIT / 2) {
            __atomic_store_n(&p->lost, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&p->cur, p->orig, __ATOMIC_RELAXED);
            tr_mprotect(page, TR_PAGE, p->orig);
            tr_stat(MPIDBG_TRS_LOST_PAGES);
            tr_unseen(page, page + TR_PAGE);
            errno = e;
            return;
        }
    } else {
        last.addr = addr;
        last.pc = pc;
        last.n = 0;
    }

    struct tr_range *r = find_pinned(addr, write);
    if (r && r->mode == MPIDBG_TR_LOG) {
        int i = tr_log_slot(r);
        if (i >= 0) {
            uint64_t at = pc;
            if (tr_pc_is_libc(pc)) { /* memcpy, memset: the program's call to it */
                uint64_t ra = stack_top((uint64_t)uc->uc_mcontext.gregs[REG_RSP]);
                if (ra && !tr_pc_is_libc(ra))
                    at = ra - 1;
            }
            /* the step first: it opens the page, where the owner's tag may lie */
            start_step(p, page, uc);
            tr_log_fill(r, i, addr, at, write);
        } else {
            /* the log is full: stop paying for this page until the next exit */
            __atomic_store_n(&p->giveup, 1, __ATOMIC_RELAXED);
            tr_apply(page, page + TR_PAGE, 1);
            tr_queue_open(page, page + TR_PAGE, 0);
        }
        tr_unpin(r);
        errno = e;
        return;
    }

    if (r) {
        uint64_t ra = tr_pc_is_libc(pc) ? stack_top((uint64_t)uc->uc_mcontext.gregs[REG_RSP]) : 0;
        if (!write && ra && tr_string_call(ra)) {
            /* a string function's vector load past its string (track_strings.c) */
            tr_unpin(r);
            goto false_hit;
        }
        /* the program touched bytes MPI owns: one report per operation */
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == R_ACTIVE)
            tr_program_access(r, pc, addr, ra, write);
        tr_unpin(r);
        /* the access runs again; other ranges on the page may still catch it */
        errno = e;
        return;
    }

    if (!tr_page_busy(p)) {
        /* protected but nothing watches it: a writer's change raced with us */
        tr_apply(page, page + TR_PAGE, 1);
        errno = e;
        return;
    }

false_hit:
    tr_stat(MPIDBG_TRS_FALSE_HITS);
    if (__atomic_add_fetch(&p->hits, 1, __ATOMIC_RELAXED) > FALSE_HIT_LIMIT) {
        tr_stat(MPIDBG_TRS_GIVEUPS);
        __atomic_store_n(&p->hits, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&p->giveup, 1, __ATOMIC_RELAXED);
        tr_apply(page, page + TR_PAGE, 1);
        tr_queue_open(page, page + TR_PAGE, 1);
        stall_logs(page);
    } else {
        start_step(p, page, uc);
    }
    errno = e;
}

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
    if (tr_hw_trap(si, ctx)) /* a debug register's (track_hw.c) */
        return;
    ucontext_t *uc = ctx;
    int ours = si->si_code == TRAP_TRACE && (uc->uc_mcontext.gregs[REG_EFL] & 0x100) && step.owed > 0;
    if (ours)
        step.owed--;
    if (!step.n) {
        if (ours) /* a trap flag of ours whose step a nested one ended already */
            uc->uc_mcontext.gregs[REG_EFL] &= ~0x100;
        else
            chain(sig, si, ctx, &old_trap);
        return;
    }
    int e = errno;
    for (int i = 0; i < step.n; i++) {
        struct tr_page *p = tr_page_find(step.page[i]);
        if (p) {
            __atomic_fetch_sub(&p->steppers, 1, __ATOMIC_RELAXED);
            tr_apply(step.page[i], step.page[i] + TR_PAGE, 1);
        }
    }
    step.n = 0;
    last.n = 0; /* the instruction ran */
    uc->uc_mcontext.gregs[REG_EFL] &= ~0x100;
    errno = e;
}

void tr_progress(void)
{
    last.n = 0;
    odd.addr = odd.pc = 0;
}

int tr_handlers_ours(void)
{
    struct sigaction cur;
    return sigaction(SIGSEGV, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv;
}

void tr_faults_init(void)
{
    Dl_info di;
    const char *self = dladdr((void *)&tr_faults_init, &di) ? di.dli_fname : NULL;
    dl_iterate_phdr(text_cb, (void *)self);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    /* SA_NODEFER: a fault inside the handler (an owner's word on a page
     * another thread protected a moment ago) comes back to it as the
     * shim's access, which opens the page, instead of killing the
     * process, as a fault with SIGSEGV blocked does */
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_segv;
    sigaction(SIGSEGV, &sa, &old_segv);
    sa.sa_flags &= ~SA_NODEFER;
    sa.sa_sigaction = on_trap;
    sigaction(SIGTRAP, &sa, &old_trap);
}
