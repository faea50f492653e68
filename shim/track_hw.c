/*
 * The tracker's debug registers: the few bytes of a stack buffer that lie
 * on its first page, watched by hardware watchpoints instead of page
 * protection (docs/races.md, "Stack buffers").
 *
 * Why: a stack buffer's first page also holds the stack below the frame
 * that owns the buffer, where every call the program, the shim or MPI
 * makes writes its return address and its frame; protecting that page
 * would fault on every call, and a system call that reads or writes a
 * variable there would fail with EFAULT. A watchpoint fires on the
 * watched bytes only: no false hits, nothing for the kernel to trip
 * over, nothing to lift while MPI runs.
 *
 * A watchpoint is a perf event of type PERF_TYPE_BREAKPOINT on the
 * calling thread (x86: 4 debug registers per thread, each 1, 2, 4 or 8
 * bytes at an address aligned to its length), with sigtrap set: the
 * kernel sends SIGTRAP (si_code TRAP_PERF, si_perf_data our tag) to the
 * thread right after the accessing instruction ran. Each thread that
 * watches gets a set of 4 events, opened on first use and kept (arming
 * and disarming are ioctls); its events fire for its own accesses only.
 *
 * A send's bytes (MPI reads them) get write watchpoints; a receive's or a
 * result's (MPI writes them) read-write ones, which do not say whether
 * the access loaded or stored: the handler compares the bytes with a copy
 * it keeps (taken when armed, renewed when the library writes them); a
 * difference is a store.
 *
 * tr_hw_trap is async-signal-safe: atomics, ioctl, process_vm_readv; it
 * pins the range it uses (tr_pin), as the fault handler does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "shim.h"
#include "track_int.h"

#define HW_SETS 256                   /* threads that watch at once */
#define HW_QUEUED 8                   /* stores queued per range of unknown layout */
#define HW_MAGIC 0x6d706462u          /* "mpdb": the upper half of our events' sig_data */

struct hw_slot {
    uint64_t addr;
    int32_t len;
    int32_t type;  /* HW_BREAKPOINT_W or HW_BREAKPOINT_RW */
    int32_t elem;  /* the datatype's element size when predefined (1..8), else 1 */
    int32_t range; /* atomic: index in tr_ranges + 1; 0 free */
    uint32_t rgen; /* the range's generation when armed */
    uint64_t snap; /* read-write: the bytes as last seen */
    uint64_t last; /* a range of unknown layout: the byte last queued, 0 none */
};

struct hw_set {
    int32_t tid;   /* atomic: the owning thread; 0 free */
    uint32_t gen;  /* atomic: bumped when the set changes owner */
    uint32_t busy; /* atomic: armed slots; written by the owner, cleared by any thread */
    int32_t pad;
    int fd[TR_HW_SLOTS];
    struct hw_slot s[TR_HW_SLOTS];
};

static struct hw_set sets[HW_SETS];
static int hw_off;               /* breakpoints refused or never firing here: the tier is off */
static pthread_key_t hw_key;
static int hw_key_ok;
static void *hw_trap_handler;    /* our SIGTRAP handler, to notice a program's own */
static __thread int my_set __attribute__((tls_model("initial-exec"))); /* index + 1 */

static void set_free(void *arg)
{
    int i = (int)(intptr_t)arg - 1;
    if (i < 0 || i >= HW_SETS)
        return;
    struct hw_set *h = &sets[i];
    __atomic_add_fetch(&h->gen, 1, __ATOMIC_ACQ_REL);
    for (int k = 0; k < TR_HW_SLOTS; k++) {
        __atomic_store_n(&h->s[k].range, 0, __ATOMIC_RELEASE);
        if (h->fd[k] >= 0)
            close(h->fd[k]);
        h->fd[k] = -1;
    }
    __atomic_store_n(&h->busy, 0, __ATOMIC_RELEASE);
    my_set = 0;
    __atomic_store_n(&h->tid, 0, __ATOMIC_RELEASE);
}

/* traps tells whether the tracker's watchpoints work here. A hypervisor
 * can take the events and never deliver the debug exception
 * (perf_event_open succeeds, the register never fires), and a kernel
 * before 5.13 refuses the signal the tracker asks for: every stack
 * buffer's first page would then go unwatched without a word. Once per
 * process: an event as the tracker makes it, opened disabled and closed
 * (does the kernel take it?), then one counted rather than signalled on
 * a variable of the shim, stored into by this thread (does it fire?).
 * NULL: they work, or the registers are taken for now (a debugger holds
 * them); else why not, in why[]. */
static void attr_of(struct perf_event_attr *a, int set, int k, uint64_t addr, int len, int type);

static const char *traps(char *why, size_t n)
{
    static volatile uint64_t probe;
    struct perf_event_attr a;
    attr_of(&a, 0, 0, (uint64_t)(uintptr_t)&probe, sizeof probe, HW_BREAKPOINT_W);
    a.disabled = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        memset(&a, 0, sizeof a);
        a.type = PERF_TYPE_BREAKPOINT;
        a.size = sizeof a;
        a.bp_type = HW_BREAKPOINT_W;
        a.bp_addr = (uint64_t)(uintptr_t)&probe;
        a.bp_len = sizeof probe;
        a.sample_period = 1;
        a.exclude_kernel = 1;
        a.exclude_hv = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0 && (errno == ENOSPC || errno == EBUSY))
        return NULL;
    if (fd < 0) {
        snprintf(why, n, "the kernel refuses a hardware watchpoint with a signal (perf_event_open: %s)", strerror(errno));
        return why;
    }
    probe = probe + 1;
    uint64_t count = 0;
    int ok = read(fd, &count, sizeof count) == (ssize_t)sizeof count && count > 0;
    close(fd);
    if (ok)
        return NULL;
    snprintf(why, n, "the hardware watchpoints never fire here (a hypervisor that does not pass them on)");
    return why;
}

void tr_hw_init(void)
{
    char why[160], text[256];
    if (traps(why, sizeof why)) {
        __atomic_store_n(&hw_off, 1, __ATOMIC_RELAXED);
        snprintf(text, sizeof text, "%s: a buffer on the stack is watched from its second page on", why);
        mpidbg_go_note(text);
    }
    hw_key_ok = pthread_key_create(&hw_key, set_free) == 0;
    struct sigaction cur;
    if (sigaction(SIGTRAP, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO))
        hw_trap_handler = (void *)cur.sa_sigaction;
}

/* this thread's set, claimed on first use; NULL when none is free */
static struct hw_set *my(void)
{
    if (my_set)
        return &sets[my_set - 1];
    if (!hw_key_ok)
        return NULL;
    int tid = (int)syscall(SYS_gettid);
    for (int i = 0; i < HW_SETS; i++) {
        int zero = 0;
        if (__atomic_compare_exchange_n(&sets[i].tid, &zero, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            struct hw_set *h = &sets[i];
            for (int k = 0; k < TR_HW_SLOTS; k++)
                h->fd[k] = -1;
            my_set = i + 1;
            pthread_setspecific(hw_key, (void *)(intptr_t)my_set);
            return h;
        }
    }
    return NULL;
}

static void attr_of(struct perf_event_attr *a, int set, int k, uint64_t addr, int len, int type)
{
    memset(a, 0, sizeof *a);
    a->type = PERF_TYPE_BREAKPOINT;
    a->size = sizeof *a;
    a->bp_type = (uint32_t)type;
    a->bp_addr = addr;
    a->bp_len = (uint64_t)len;
    a->sample_period = 1;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    a->sigtrap = 1;
    a->remove_on_exec = 1; /* required with sigtrap */
    a->sig_data = (uint64_t)HW_MAGIC << 32 | (uint64_t)set << 8 | (uint64_t)k;
}

/* arm one slot of this thread's set on [addr, addr+len); 0 on success */
static int arm(struct hw_set *h, int k, uint64_t addr, int len, int type)
{
    struct perf_event_attr a;
    attr_of(&a, (int)(h - sets), k, addr, len, type);
    if (h->fd[k] < 0) {
        int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            /* no such events here (an old kernel, perf_event_paranoid, a
             * seccomp filter): the tier is off for the process; ENOSPC (a
             * debugger holds the registers) only for this attempt */
            if (errno != ENOSPC && errno != EBUSY)
                __atomic_store_n(&hw_off, 1, __ATOMIC_RELAXED);
            return -1;
        }
        h->fd[k] = fd;
        return 0;
    }
    if (ioctl(h->fd[k], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) != 0)
        return -1;
    return ioctl(h->fd[k], PERF_EVENT_IOC_ENABLE, 0);
}

#define HW_PREFIX 2 /* registers for the first bytes of a buffer too large for all four */

/* pieces covers the data bytes of r in [lo, hi) with aligned pieces of
 * 1, 2, 4 or 8 bytes, none longer than maxlen; returns their number, or
 * -1 when more than max */
static int pieces(const struct tr_range *r, uint64_t lo, uint64_t hi, uint64_t *at, int *len, int max, int maxlen)
{
    int n = 0;
    for (uint64_t a = lo; a < hi;) {
        if (!tr_in_data(r, a)) {
            a++;
            continue;
        }
        uint64_t e = a + 1;
        while (e < hi && tr_in_data(r, e))
            e++;
        while (a < e) {
            int l = maxlen;
            while (l > 1 && ((a & (uint64_t)(l - 1)) || a + (uint64_t)l > e))
                l /= 2;
            if (n == max)
                return -1;
            at[n] = a;
            len[n++] = l;
            a += (uint64_t)l;
        }
    }
    return n;
}


int tr_hw_add(struct tr_range *r, int slot, uint64_t lo, uint64_t hi)
{
    if (__atomic_load_n(&hw_off, __ATOMIC_RELAXED) || r->mode == MPIDBG_TR_LOG || hi <= lo)
        return 0;
    struct sigaction cur;
    if (!hw_trap_handler || sigaction(SIGTRAP, NULL, &cur) != 0 || (void *)cur.sa_sigaction != hw_trap_handler)
        return 0; /* the program handles SIGTRAP itself now: our events would go to it */
    struct hw_set *h = my();
    if (!h)
        return 0;
    uint64_t at[TR_HW_SLOTS];
    int len[TR_HW_SLOTS];
    uint32_t busy = __atomic_load_n(&h->busy, __ATOMIC_ACQUIRE);
    int nfree = TR_HW_SLOTS - __builtin_popcount(busy);
    /* a piece per element when the registers suffice, so that a trap
     * names the element; else pieces of up to 8 bytes */
    int64_t esize = MPIDBG_BUILTIN_TYPE_SIZE_OR(r->w.type);
    int n = -1, whole = 1;
    if (hi - lo > 8 * TR_HW_SLOTS) {
        /* More bytes than the registers hold (a local array: Fortran
         * keeps them on the stack up to 64 KiB): its first ones, which a
         * whole-array assignment, a fill and a loop from the start touch
         * first, with HW_PREFIX registers, and only while the thread
         * keeps at least one more for an operation whose bytes fit. */
        if (nfree <= HW_PREFIX)
            return 0;
        for (uint64_t end = lo + 8 * HW_PREFIX; n < 0 && end > lo; end -= 8)
            n = pieces(r, lo, end, at, len, HW_PREFIX, 8);
        if (n == 0)
            return 0; /* no data byte among the first ones: nothing watched */
        if (n > 0)
            tr_stat(MPIDBG_TRS_HW_PREFIX);
        whole = 0;
    } else {
        if (esize == 1 || esize == 2 || esize == 4)
            n = pieces(r, lo, hi, at, len, nfree, (int)esize);
        if (n < 0)
            n = pieces(r, lo, hi, at, len, nfree, 8);
    }
    if (n < 0) {
        tr_stat(MPIDBG_TRS_HW_FULL);
        return 0;
    }
    if (n == 0)
        return 1; /* no data byte there: nothing to watch */
    /* A datatype the range's blocks do not describe (nblk < 0) leaves
     * its gaps inside the pieces, and a register does not say which of
     * its bytes an access touched: a load of a gap would read as a load
     * of data. Such bytes are watched for stores only; a store that
     * changed a byte is queued by that byte, whose place in the type map
     * the report looks up (a gap's store is dropped there), and the
     * range stays watched meanwhile. */
    int type = r->mode == MPIDBG_TR_STORES || r->nblk < 0 ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW;
    uint32_t mask = 0;
    for (int i = 0, k = 0; i < n; i++) {
        while (k < TR_HW_SLOTS && (busy & (1u << k)))
            k++;
        struct hw_slot *s = &h->s[k];
        s->addr = at[i];
        s->len = len[i];
        s->type = type;
        s->rgen = r->gen;
        s->elem = esize == 2 || esize == 4 || esize == 8 ? (int)esize : 1;
        s->snap = 0;
        s->last = 0;
        memcpy(&s->snap, (const void *)(uintptr_t)at[i], (size_t)len[i]);
        __atomic_store_n(&s->range, slot + 1, __ATOMIC_RELEASE);
        if (arm(h, k, at[i], len[i], type) != 0) {
            __atomic_store_n(&s->range, 0, __ATOMIC_RELEASE);
            r->hw_set = (int16_t)(h - sets);
            r->hw_gen = __atomic_load_n(&h->gen, __ATOMIC_ACQUIRE);
            r->hw_mask = (uint8_t)mask;
            tr_hw_remove(r);
            return 0;
        }
        tr_stat(MPIDBG_TRS_HW_ARMS);
        mask |= 1u << k;
        busy |= 1u << k;
        __atomic_or_fetch(&h->busy, 1u << k, __ATOMIC_ACQ_REL);
    }
    r->hw_set = (int16_t)(h - sets);
    r->hw_gen = __atomic_load_n(&h->gen, __ATOMIC_ACQUIRE);
    __atomic_store_n(&r->hw_mask, (uint8_t)mask, __ATOMIC_RELEASE);
    return whole ? 1 : 2;
}

/* disable stops the range's events; from any thread (an ioctl on another
 * thread's event reaches it), also from the handler */
static void disable(const struct tr_range *r)
{
    uint8_t mask = __atomic_load_n(&r->hw_mask, __ATOMIC_ACQUIRE);
    if (!mask || r->hw_set < 0 || r->hw_set >= HW_SETS)
        return;
    struct hw_set *h = &sets[r->hw_set];
    if (__atomic_load_n(&h->gen, __ATOMIC_ACQUIRE) != r->hw_gen)
        return; /* its thread ended: its events went with it */
    for (int k = 0; k < TR_HW_SLOTS; k++)
        if (mask & (1u << k) && h->fd[k] >= 0)
            ioctl(h->fd[k], PERF_EVENT_IOC_DISABLE, 0);
}

void tr_hw_remove(struct tr_range *r)
{
    uint8_t mask = __atomic_exchange_n(&r->hw_mask, 0, __ATOMIC_ACQ_REL);
    if (!mask || r->hw_set < 0 || r->hw_set >= HW_SETS)
        return;
    struct hw_set *h = &sets[r->hw_set];
    if (__atomic_load_n(&h->gen, __ATOMIC_ACQUIRE) != r->hw_gen)
        return;
    for (int k = 0; k < TR_HW_SLOTS; k++) {
        if (!(mask & (1u << k)))
            continue;
        if (h->fd[k] >= 0)
            ioctl(h->fd[k], PERF_EVENT_IOC_DISABLE, 0);
        __atomic_store_n(&h->s[k].range, 0, __ATOMIC_RELEASE);
        __atomic_and_fetch(&h->busy, ~(1u << k), __ATOMIC_ACQ_REL);
    }
}

/* the tag the kernel copied from attr.sig_data, and its flags: siginfo's
 * si_perf_data and si_perf_flags, which glibc 2.36 does not name (the
 * kernel's _sigfault._perf: _data after si_addr, then _type, _flags) */
static uint64_t perf_data(const siginfo_t *si)
{
    uint64_t v;
    memcpy(&v, (const char *)&si->si_addr + sizeof(void *), sizeof v);
    return v;
}

static uint32_t perf_flags(const siginfo_t *si)
{
    uint32_t v;
    memcpy(&v, (const char *)&si->si_addr + 2 * sizeof(void *) + sizeof(uint32_t), sizeof v);
    return v;
}

int tr_hw_trap(siginfo_t *si, void *ctx)
{
    if (si->si_code != TR_TRAP_PERF)
        return 0;
    uint64_t tag = perf_data(si);
    if ((uint32_t)(tag >> 32) != HW_MAGIC)
        return 0;
    int set = (int)((tag >> 8) & 0xffff), k = (int)(tag & 0xff);
    if (set >= HW_SETS || k >= TR_HW_SLOTS)
        return 0;
    if (perf_flags(si) & 1) /* TRAP_PERF_FLAG_ASYNC: the thread blocked SIGTRAP; the access is long past */
        return 1;
    int e = errno;
    ucontext_t *uc = ctx;
    struct hw_set *h = &sets[set];
    struct hw_slot *s = &h->s[k];
    int ri = __atomic_load_n(&s->range, __ATOMIC_ACQUIRE) - 1;
    struct tr_range *r = ri >= 0 && ri < TR_MAX ? &tr_ranges[ri] : NULL;
    if (!r || r->gen != s->rgen || (uint64_t)(uintptr_t)si->si_addr != s->addr || !tr_pin(r)) {
        /* disarmed meanwhile (the register watches other bytes now: the
         * kernel names the address it watched then), or reported through
         * its pages already */
        if (h->fd[k] >= 0 && r && (uint64_t)(uintptr_t)si->si_addr == s->addr)
            ioctl(h->fd[k], PERF_EVENT_IOC_DISABLE, 0);
        errno = e;
        return 1;
    }
    if (r->gen != s->rgen) { /* the slot went to another range before the pin */
        tr_unpin(r);
        errno = e;
        return 1;
    }
    /* the instruction ran: the program counter is the next one */
    uint64_t next = (uint64_t)uc->uc_mcontext.gregs[REG_RIP], pc = next - 1;
    /* a store changed the bytes (a store of the value they held reads as
     * a load); the first changed byte is the one reported */
    uint64_t now = 0, at = s->addr;
    int write = s->type == HW_BREAKPOINT_W, changed = 0;
    if (tr_peek(s->addr, &now, (size_t)s->len) && now != s->snap) {
        changed = 1;
        const unsigned char *a = (const unsigned char *)&now, *b = (const unsigned char *)&s->snap;
        int j = 0;
        while (j < s->len - 1 && a[j] == b[j])
            j++;
        at += (uint64_t)j;
        at -= (at - (uint64_t)r->base) % (uint64_t)s->elem; /* the element's first byte */
        write = 1;
    }
    s->snap = now;
    tr_stat(MPIDBG_TRS_HW_TRAPS);
    if (mpidbg_depth > 0 || tr_pc_is_lib(pc)) {
        /* the library (or the shim) moving the data */
        if (write)
            __atomic_store_n(&r->moved, TR_MOVED, __ATOMIC_RELAXED);
        tr_unpin(r);
        errno = e;
        return 1;
    }
    uint64_t ra = 0;
    if (tr_pc_is_libc(pc)) /* memcpy, memset: the program's call to it */
        tr_peek((uint64_t)uc->uc_mcontext.gregs[REG_RSP], &ra, sizeof ra);
    if (r->nblk < 0) {
        /* unknown layout: a store of the value there (to data or a gap)
         * says nothing; a changed byte other than the one queued last is
         * queued, HW_QUEUED of them per range at most (a loop storing to
         * gaps must not fill the ring) */
        if (changed && at != s->last && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == R_ACTIVE &&
            __atomic_load_n(&r->hw_queued, __ATOMIC_RELAXED) < HW_QUEUED &&
            __atomic_add_fetch(&r->hw_queued, 1, __ATOMIC_RELAXED) <= HW_QUEUED) {
            s->last = at;
            tr_stat(MPIDBG_TRS_PROG_FAULTS);
            tr_queue_event(r, pc, at, ra, write, __atomic_load_n(&r->moved, __ATOMIC_RELAXED));
        }
        tr_unpin(r);
        errno = e;
        return 1;
    }
    if (!write && tr_string_call(ra)) {
        /* a string function's vector load past its string (track_strings.c) */
        tr_unpin(r);
        errno = e;
        return 1;
    }
    int st = R_ACTIVE;
    if (__atomic_compare_exchange_n(&r->state, &st, R_OFF, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        tr_stat(MPIDBG_TRS_PROG_FAULTS);
        tr_queue_event(r, pc, at, ra, write, __atomic_load_n(&r->moved, __ATOMIC_RELAXED));
        disable(r);
        int one = 1;
        if (__atomic_compare_exchange_n(&r->counted, &one, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            tr_update(r->plo, r->phi, r->mode, -1, 0);
    }
    tr_unpin(r);
    errno = e;
    return 1;
}
