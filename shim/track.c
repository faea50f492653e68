/*
 * The access tracker: watched ranges, the sampling policy, and the way
 * from a fault to a finding. docs/races.md describes the whole; the page
 * table and the memory map are in track_pages.c, the signal handlers in
 * track_fault.c.
 *
 * A range goes R_FREE -> R_ACTIVE (add) -> R_OFF (reported, or removed)
 * -> R_FREE (removed). Its pages count it while "counted" is 1; whoever
 * turns counted from 1 to 0 (the handler that reports it, or remove)
 * takes it off the counts and sets the pages' protection again.
 *
 * The SyncChecker states: an access while the range is not moved is an
 * error (fid), after the library moved the data (a library fault on the
 * range's bytes, or an operation that completed when it started) but
 * before the completion call it is latent (fid_latent).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "track_int.h"

int mpidbg_track_on;
__thread int mpidbg_track_dirty __attribute__((tls_model("initial-exec")));
int mpidbg_track_queued;
uint64_t mpidbg_track_stats[MPIDBG_TRS_N];

struct tr_range tr_ranges[TR_MAX];
int tr_hwm;
pthread_mutex_t tr_mu = PTHREAD_MUTEX_INITIALIZER;

static int free_slots[TR_MAX];
static int nfree;

/* ---- configuration ---- */

#define CMA_LIMIT 8192   /* receive ranges above this are not watched when UCX may use CMA */
#define BURST 16         /* the first operations of a site are always watched */
#define BURST_STEP 32    /* then the sampling period doubles every this many operations */

static int sample_floor = 1024; /* the longest sampling period (MPIDBG_RACE_SAMPLE) */
static uint64_t tls_below = 16 * TR_PAGE; /* how far below the thread pointer a thread's static TLS may reach */
static int cma_risk;          /* UCX_TLS was set by the user and may include cma */
int mpidbg_track_chose_osc;   /* Open MPI's one-sided component is the tracker's choice */
static int want_stats;

static uint64_t now_ns(void)
{
    return want_stats ? (uint64_t)mpidbg_mono_ns() : 0;
}

static void add_ns(int stat, uint64_t t0)
{
    if (want_stats)
        __atomic_fetch_add(&mpidbg_track_stats[stat], now_ns() - t0, __ATOMIC_RELAXED);
}

static int race_off(void)
{
    const char *r = getenv("MPIDBG_RACE");
    mpidbg_checks_init();
    unsigned both = (1u << MPIDBG_CAT_BUFFER_RACE) | (1u << MPIDBG_CAT_RMA_RACE);
    /* the spellings of off mpidbg run takes (cmd/mpidbg, onOff) */
    int off = r && (strcmp(r, "off") == 0 || strcmp(r, "0") == 0 || strcmp(r, "false") == 0);
    return off || (mpidbg_disabled & both) == both;
}

/* Before MPI_Init reads its environment: UCX moves large messages between
 * processes of one node with CMA (process_vm_readv/writev), which fails
 * with EFAULT on a protected receive buffer and aborts the job. Unless
 * the user chose the transports, leave cma out, and tcp with it: without
 * cma, UCX 1.13 takes tcp lanes for rendezvous between the processes of
 * a node, and a job under the shim then sometimes hangs in MPI_Finalize
 * (ep flush); shared memory (sysv, posix) carries everything on a node,
 * InfiniBand transports stay for other nodes. */
__attribute__((constructor)) static void tr_environment(void)
{
    if (race_off())
        return;
#ifdef OPEN_MPI
    /* Open MPI copies between the processes of a node with CMA too: its
     * shared-memory transport (vader) for large messages, and through it
     * the one-sided component rdma for every put and get. On a protected
     * page that fails (EFAULT, "Read -1, expected 32, errno = 14") and
     * the job dies or hangs. Unless the user chose, one-sided traffic
     * goes through another component (ucx, which the UCX_TLS below keeps
     * off CMA; sm for shared windows) and vader copies through its
     * shared segment. */
    mpidbg_track_chose_osc = !getenv("OMPI_MCA_osc");
    setenv("OMPI_MCA_osc", "^rdma", 0);
    setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
#endif
    const char *t = getenv("UCX_TLS");
    if (!t) {
        setenv("UCX_TLS", "^cma,tcp", 0);
        return;
    }
    int excluded = t[0] == '^' && strstr(t, "cma");
    cma_risk = !excluded && (t[0] == '^' || strstr(t, "cma") || strstr(t, "sm") || strstr(t, "shm") || strstr(t, "all"));
}

void mpidbg_track_init(void)
{
    if (race_off() || ((mpidbg_disabled & (1u << MPIDBG_CAT_BUFFER_RACE)) && (mpidbg_disabled & (1u << MPIDBG_CAT_RMA_RACE))))
        return;
    const char *s = getenv("MPIDBG_RACE_SAMPLE");
    if (s && strcmp(s, "all") == 0)
        sample_floor = 1;
    else if (s && *s) {
        long v = strtol(s, NULL, 10);
        if (v >= 1) {
            int f = 1;
            while (f * 2 <= v && f < (1 << 20))
                f *= 2;
            sample_floor = f;
        }
    }
    want_stats = getenv("MPIDBG_RACE_STATS") != NULL;
    tr_strings_init();
    /* The static TLS of every module loaded at the start lies right below
     * the thread pointer (x86-64's TLS variant II): a program's large
     * __thread array shares pages with errno and the shim's own TLS, which
     * the fault handler uses. glibc's dynamic loader says how large it is
     * (GLIBC_PRIVATE, but exported since glibc 2.0); 16 pages when not. */
    void (*tls_info)(size_t *, size_t *) = (void (*)(size_t *, size_t *))dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
    if (tls_info) {
        size_t size = 0, align = 0;
        tls_info(&size, &align);
        if (size + TR_PAGE > tls_below)
            tls_below = ((uint64_t)size + 2 * TR_PAGE - 1) & TR_PMASK;
    }
    if (TR_PAGE != (unsigned long)sysconf(_SC_PAGESIZE) || tr_pages_init() != 0)
        return;
    tr_faults_init();
    tr_hw_init();
    tr_spawn_init();
    __atomic_store_n(&mpidbg_track_on, 1, __ATOMIC_RELEASE);
    tr_altstacks_known();
}

/* ---- sampling by call site ----
 * The first BURST operations of a site are watched, then every second
 * for BURST_STEP operations, every fourth for the next BURST_STEP, ...
 * down to one in sample_floor. A finding at a site starts it over. The
 * table is lock-free: a site's slot is claimed once with a CAS.
 *
 * A costly site is watched one time in COSTLY_PERIOD at most, its first
 * BURST included (less often once its own period is longer): one
 * whose buffers' pages gave up (FALSE_HIT_LIMIT false hits, then open
 * until the next wrapper exit) COSTLY_PAGES times. A strided receive
 * into a 2-D array, the interior computed on meanwhile, costs 33 faults
 * per page it spans, every iteration: tens of times slower than
 * natively. */
#define SITES 4096
#define COSTLY_PAGES 64
#define COSTLY_PERIOD 64
static struct {
    uint64_t site;
    uint64_t n;
    uint64_t giveups;
} sites[SITES];

static int site_slot(uint64_t site)
{
    uint64_t h = (site * 0x9e3779b97f4a7c15ull) >> 52;
    for (int i = 0; i < 64; i++) {
        int j = (int)((h + i) & (SITES - 1));
        uint64_t *k = &sites[j].site;
        uint64_t v = __atomic_load_n(k, __ATOMIC_ACQUIRE);
        if (v == site)
            return j;
        if (v == 0) {
            uint64_t zero = 0;
            if (__atomic_compare_exchange_n(k, &zero, site, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) || zero == site)
                return j;
        }
    }
    return -1;
}

static uint64_t *site_counter(uint64_t site)
{
    int j = site_slot(site);
    return j < 0 ? NULL : &sites[j].n;
}

/* gave_up: pages [lo, hi) opened until the next wrapper exit after too
 * many false hits; the sites of the ranges on them pay. Returns how many
 * times, at most, one of those ranges saw its pages give up. Under
 * tr_mu. */
static uint32_t gave_up(uint64_t lo, uint64_t hi)
{
    uint32_t most = 0;
    for (int i = 0; i < tr_hwm; i++) {
        struct tr_range *r = &tr_ranges[i];
        if (!__atomic_load_n(&r->counted, __ATOMIC_ACQUIRE) || r->plo >= hi || r->phi <= lo)
            continue;
        if (++r->giveups > most)
            most = r->giveups;
        int j = r->w.site ? site_slot(r->w.site) : -1;
        if (j >= 0)
            __atomic_add_fetch(&sites[j].giveups, (hi - lo) / TR_PAGE, __ATOMIC_RELAXED);
    }
    return most;
}

int mpidbg_track_sample(uint64_t site)
{
    if (!mpidbg_track_on)
        return 0;
    if (sample_floor == 1)
        return 1;
    int j = site_slot(site);
    if (j < 0)
        return 1; /* no room: watch everything */
    uint64_t n = mpidbg_count(&sites[j].n); /* a lost count repeats one call's decision */
    int costly = __atomic_load_n(&sites[j].giveups, __ATOMIC_RELAXED) >= COSTLY_PAGES;
    if (n < BURST && !costly)
        return 1;
    uint64_t m = n < BURST ? 0 : n - BURST, shift = 1 + m / BURST_STEP;
    uint64_t period = n < BURST ? 1 : shift >= 20 ? (uint64_t)sample_floor : (1ull << shift);
    if (period > (uint64_t)sample_floor)
        period = (uint64_t)sample_floor;
    if (costly && period < COSTLY_PERIOD) {
        period = sample_floor < COSTLY_PERIOD ? (uint64_t)sample_floor : COSTLY_PERIOD;
        m = n;
    }
    if ((m & (period - 1)) == 0)
        return 1;
    tr_stat(MPIDBG_TRS_SAMPLED_OUT);
    return 0;
}

void mpidbg_track_found(uint64_t site)
{
    uint64_t *c = site_counter(site);
    if (c)
        __atomic_store_n(c, 0, __ATOMIC_RELAXED);
}

/* ---- exact bytes of derived datatypes ----
 * A direct-mapped cache of the Go model's strided layouts, by type
 * handle, the record's serial (a reused handle is a new type) and count.
 * Under tr_mu. */
#define LCACHE 64
static struct {
    uint64_t type;
    uint32_t serial;
    int32_t n; /* blocks, -1 not expressible */
    int64_t count;
    struct mpidbg_tr_block b[MPIDBG_TR_BLOCKS];
} lcache[LCACHE];

static int layout(uint64_t type, int64_t count, struct mpidbg_tr_block *out)
{
    uint32_t serial = mpidbg_obj_serial(MPIDBG_OBJ_TYPE, type);
    unsigned h = (unsigned)((type * 0x9e3779b97f4a7c15ull ^ (uint64_t)count * 0xc2b2ae3d27d4eb4full) >> 58);
    if (lcache[h].type != type || lcache[h].serial != serial || lcache[h].count != count || !lcache[h].n) {
        lcache[h].type = type;
        lcache[h].serial = serial;
        lcache[h].count = count;
        lcache[h].n = mpidbg_go_layout(type, count, lcache[h].b);
        if (lcache[h].n == 0)
            lcache[h].n = -1;
    }
    if (lcache[h].n > 0)
        memcpy(out, lcache[h].b, sizeof *out * (size_t)lcache[h].n);
    return lcache[h].n;
}

int tr_in_range(const struct tr_range *r, uint64_t addr)
{
    return addr >= r->lo && addr < r->hi && tr_in_data(r, addr);
}

int tr_in_data(const struct tr_range *r, uint64_t addr)
{
    if ((int64_t)addr < r->slo || (int64_t)addr >= r->shi)
        return 0;
    int nb = r->nblk;
    if (nb <= 0 || nb > MPIDBG_TR_BLOCKS)
        return 1;
    int64_t x = (int64_t)(addr - r->base);
    for (int k = 0; k < nb; k++) {
        const struct mpidbg_tr_block *b = &r->blk[k];
        int64_t y = x - b->off;
        if (y < 0)
            continue;
        for (int d = b->nd - 1; d >= 0; d--) {
            if (b->stride[d] <= 0)
                break;
            int64_t i = y / b->stride[d];
            if (i >= b->cnt[d])
                i = b->cnt[d] - 1;
            y -= i * b->stride[d];
        }
        if (y < b->len)
            return 1;
    }
    return 0;
}

/* ---- adding and removing ranges ---- */

/* A log-mode range's log is written by the fault handler, so it lives in
 * a mapping of its own: from malloc it could share a page with a buffer
 * the tracker protects (the window memory it logs, when that is small),
 * and a fault inside the handler is fatal. */
static size_t log_bytes(uint32_t cap)
{
    return ((size_t)cap * sizeof(struct mpidbg_tr_access) + TR_PAGE - 1) & TR_PMASK;
}

static struct mpidbg_tr_access *log_alloc(uint32_t cap)
{
    void *p = mmap(NULL, log_bytes(cap), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void log_free(struct mpidbg_tr_access *log, uint32_t cap)
{
    if (log)
        munmap(log, log_bytes(cap));
}

static int slot_of(int id, struct tr_range **rp)
{
    int slot = (id & 0x3fff) - 1;
    if (id <= 0 || slot < 0 || slot >= TR_MAX)
        return -1;
    struct tr_range *r = &tr_ranges[slot];
    if ((r->gen & 0x1ffff) != ((unsigned)id >> 14) || r->state == R_FREE)
        return -1;
    *rp = r;
    return slot;
}

static int add_range(const struct mpidbg_seg *seg, int mode, const struct mpidbg_tr_what *w, int *missed);
static void tr_stop(void);

#define FOREIGN_ABOVE (256 * 1024)
#define FOREIGN_BELOW (64 * 1024)

/* on_my_stack: 1 when a is on the calling thread's stack above this
 * frame, -1 when below it (no live object of the program is there: the
 * shim's and MPI's frames are), 0 when elsewhere */
static int on_my_stack(uint64_t a)
{
    static __thread uint64_t bottom __attribute__((tls_model("initial-exec")));
    static __thread uint64_t top __attribute__((tls_model("initial-exec")));
    if (!top) {
        pthread_attr_t at;
        void *base = NULL;
        size_t size = 0;
        top = 1; /* unknown: nothing counts as the stack */
        if (pthread_getattr_np(pthread_self(), &at) == 0) {
            if (pthread_attr_getstack(&at, &base, &size) == 0 && base) {
                bottom = (uint64_t)(uintptr_t)base;
                top = bottom + size;
            }
            pthread_attr_destroy(&at);
        }
    }
    uint64_t fp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
    if (fp < bottom || fp >= top) {
        /* running on a stack of the program's own (a ucontext coroutine's,
         * on the heap), whose bounds no one says: what lies just above
         * this frame is taken for its frames, what lies just below for
         * the shim's and MPI's, and a signal's frame */
        if (a >= fp && a - fp < FOREIGN_ABOVE)
            return 1;
        if (a < fp && fp - a < FOREIGN_BELOW)
            return -1;
        return 0;
    }
    if (a < bottom || a >= top)
        return 0;
    return a >= fp ? 1 : -1;
}

int mpidbg_track_add(const struct mpidbg_seg *seg, int mode, const struct mpidbg_tr_what *w, int *missed)
{
    int ignored;
    if (!missed)
        missed = &ignored;
    *missed = 0;
    uint64_t t0 = now_ns();
    int id = add_range(seg, mode, w, missed);
    add_ns(MPIDBG_TRS_ADD_NS, t0);
    return id;
}

/* The pages hold_all holds open, to be let go: a range may stop being
 * counted meanwhile (a handler reporting it), and its pages must still be
 * let go. Under tr_mu. */
static uint64_t *held;
static size_t nheld, capheld;

/* hold_all opens the pages of every range that has pages, held as a
 * stepped instruction's page is (its steppers count); a page two ranges
 * share is held twice. Under tr_mu, so that no range adds pages
 * meanwhile. */
static void hold_all(void)
{
    nheld = 0;
    for (int i = 0; i < tr_hwm; i++) {
        struct tr_range *r = &tr_ranges[i];
        if (!__atomic_load_n(&r->counted, __ATOMIC_ACQUIRE))
            continue;
        for (uint64_t a = r->plo; a < r->phi; a += TR_PAGE) {
            struct tr_page *p = tr_page_find(a);
            if (!p)
                continue;
            if (nheld == capheld) {
                size_t cap = capheld ? 2 * capheld : 64;
                uint64_t *v = realloc(held, sizeof *v * cap);
                if (!v)
                    return; /* the rest stays protected */
                held = v;
                capheld = cap;
            }
            held[nheld++] = a;
            __atomic_add_fetch(&p->steppers, 1, __ATOMIC_SEQ_CST);
            tr_apply(a, a + TR_PAGE, 1);
        }
    }
}

static void let_go(void)
{
    for (size_t i = 0; i < nheld; i++) {
        struct tr_page *p = tr_page_find(held[i]);
        if (p)
            __atomic_sub_fetch(&p->steppers, 1, __ATOMIC_SEQ_CST);
        tr_apply(held[i], held[i] + TR_PAGE, 0);
    }
    nheld = 0;
}

int tr_holders;
static int settling; /* atomic: tr_hold is applying a change to the pages */

/* apply_ranges sets the protection of every counted range's pages to
 * what they ask (the table's other pages ask for their original
 * protection already); under tr_mu. */
static void apply_ranges(int force)
{
    for (int i = 0; i < tr_hwm; i++) {
        struct tr_range *r = &tr_ranges[i];
        if (__atomic_load_n(&r->counted, __ATOMIC_ACQUIRE) && r->phi > r->plo)
            tr_apply(r->plo, r->phi, force);
    }
}

void tr_hold(int d)
{
    __atomic_store_n(&settling, 1, __ATOMIC_SEQ_CST);
    int was = __atomic_fetch_add(&tr_holders, d, __ATOMIC_SEQ_CST);
    /* opening, every page whatever cur says: a handler's protection may
     * have come after the hint (what stays protected here is fatal) */
    if (!was && was + d)
        apply_ranges(1);
    else if (was && !(was + d))
        apply_ranges(0);
    __atomic_store_n(&settling, 0, __ATOMIC_SEQ_CST);
}

void mpidbg_track_hold(int d)
{
    int e = errno;
    pthread_mutex_lock(&tr_mu);
    tr_hold(d);
    pthread_mutex_unlock(&tr_mu);
    errno = e;
}

int tr_hold_settled(void)
{
    return !__atomic_load_n(&tr_holders, __ATOMIC_SEQ_CST) && !__atomic_load_n(&settling, __ATOMIC_SEQ_CST);
}

void mpidbg_track_first_go(void (*fn)(void))
{
    if (!__atomic_load_n(&mpidbg_track_on, __ATOMIC_ACQUIRE)) {
        fn(); /* no page is ever protected */
        return;
    }
    /* under the lock even when nothing is watched now: another thread's
     * range may come between a look and the call */
    pthread_mutex_lock(&tr_mu);
    hold_all();
    fn();
    let_go();
    pthread_mutex_unlock(&tr_mu);
}

/* shared_span: every page of [lo, hi) lies in a shared writable mapping */
static int shared_span(uint64_t lo, uint64_t hi)
{
    pthread_mutex_lock(&tr_mu);
    int yes = tr_shared(lo & TR_PMASK, (hi + TR_PAGE - 1) & TR_PMASK);
    pthread_mutex_unlock(&tr_mu);
    return yes;
}

static int add_range(const struct mpidbg_seg *seg, int mode, const struct mpidbg_tr_what *w, int *missed)
{
    if (!__atomic_load_n(&mpidbg_track_on, __ATOMIC_ACQUIRE) || !seg || !w || seg->hi <= seg->lo ||
        mode < MPIDBG_TR_STORES || mode > MPIDBG_TR_LOG)
        return 0;
    if (mode != MPIDBG_TR_LOG && !w->sampled && !mpidbg_track_sample(w->site))
        return 0;
    if (mode == MPIDBG_TR_ALL && cma_risk && seg->hi - seg->lo > CMA_LIMIT) {
        tr_stat(MPIDBG_TRS_CMA);
        return 0;
    }
    uint64_t lo = (uint64_t)seg->lo, hi = (uint64_t)seg->hi;
    if (w->own_pages) {
        lo = (lo + TR_PAGE - 1) & TR_PMASK;
        hi &= TR_PMASK;
        if (hi <= lo)
            return 0;
    }
    /* A buffer on this thread's stack: the frame that owns it lies at or
     * below its first byte, and every call made from there on (the
     * program's, the shim's, MPI's) writes its return address and frame
     * further down, on the buffer's first page (unless the buffer starts
     * a page), never on its other pages. Protecting that page would fault
     * on every call, a system call given a variable there would fail
     * with EFAULT, and a signal delivered there would find no room for
     * its frame (the kernel then ends the process): the buffer's bytes on
     * it go to the debug registers instead (track_hw.c), its other pages
     * are protected like any memory. So too when the first page lies far
     * above this frame (the buffer of a frame that called the one that
     * called MPI): once the calls between them return, the owner's next
     * calls run on that page. */
    uint64_t hot_lo = 0, hot_hi = 0;
    int stack = on_my_stack(lo);
    if (stack < 0) {
        tr_stat(MPIDBG_TRS_REFUSED);
        return 0;
    }
    if (stack && (lo & (TR_PAGE - 1))) {
        hot_lo = lo;
        hot_hi = hi < (lo & TR_PMASK) + TR_PAGE ? hi : (lo & TR_PMASK) + TR_PAGE;
        lo = hot_hi;
        if (mode == MPIDBG_TR_LOG) {
            tr_stat(MPIDBG_TRS_HOT_STACK);
            hot_lo = hot_hi = 0;
            if (hi <= lo)
                return 0;
        }
    }
    /* the thread's TLS and control block (the handler's own state), and
     * what lies near them; a shared mapping there is not TLS (window
     * memory MPI maps from /dev/shm lands there as often as not): checked
     * again under the lock below */
    uint64_t tp = (uint64_t)(uintptr_t)pthread_self();
    int near_tls = hi > lo && lo < tp + 2 * TR_PAGE && hi > tp - tls_below;
    if (near_tls && mode != MPIDBG_TR_LOG && !shared_span(lo, hi)) {
        if (hot_hi <= hot_lo) {
            tr_stat(MPIDBG_TRS_REFUSED);
            return 0;
        }
        lo = hi; /* the first page's bytes only (a thread's stack ends at its TLS) */
        near_tls = 0;
    }
    uint64_t plo = lo & TR_PMASK, phi = (hi + TR_PAGE - 1) & TR_PMASK;
    if (hi <= lo)
        plo = phi = lo = hi = 0; /* debug registers only */
    if (!tr_handlers_ours()) {
        /* the program installed a SIGSEGV handler of its own: our faults
         * would go to it. The tracker stops for good. */
        tr_stat(MPIDBG_TRS_REFUSED);
        tr_stop();
        return 0;
    }
    tr_altstack();

    pthread_mutex_lock(&tr_mu);
    if (near_tls && !tr_shared(plo, phi))
        goto refuse;
    if (!stack && phi > plo && (lo & (TR_PAGE - 1)) && mode != MPIDBG_TR_LOG && tr_stack_like(lo)) {
        /* another thread's stack: the first page is where that thread's
         * calls write their frames, and this thread's debug registers do
         * not see its accesses; the other pages are watched */
        tr_stat(MPIDBG_TRS_HOT_STACK);
        lo = (lo & TR_PMASK) + TR_PAGE;
        plo = lo;
        if (hi <= lo)
            goto refuse;
    }
    int slot = nfree ? free_slots[--nfree] : tr_hwm < TR_MAX ? tr_hwm : -1;
    if (slot < 0 || !tr_pages_room((phi - plo) / TR_PAGE))
        goto refuse;
    for (uint64_t a = plo, until = 0; a < phi;) {
        int orig = tr_orig(a, &until, 1);
        for (; a < phi && a < until; a += TR_PAGE)
            if (orig < 0 || !tr_page_get(a, orig)) {
                if (slot != tr_hwm)
                    free_slots[nfree++] = slot;
                goto refuse;
            }
    }
    if (slot == tr_hwm)
        __atomic_store_n(&tr_hwm, tr_hwm + 1, __ATOMIC_RELEASE);
    struct tr_range *r = &tr_ranges[slot];
    r->gen++;
    r->lo = lo;
    r->hi = hi;
    r->plo = plo;
    r->phi = phi;
    r->base = seg->addr;
    r->slo = seg->lo;
    r->shi = seg->hi;
    r->mode = mode;
    r->w = *w;
    int moved = w->moved ? TR_MOVED : TR_STARTED;
    for (uint64_t a = plo; moved == TR_STARTED && mode == MPIDBG_TR_ALL && a < phi; a += TR_PAGE) {
        /* a page left open for good: MPI's writes there go unseen (one
         * open until this wrapper's exit closes before the next call) */
        const struct tr_page *q = tr_page_find(a);
        if (q && __atomic_load_n(&q->lost, __ATOMIC_RELAXED))
            moved = TR_UNSEEN;
    }
    __atomic_store_n(&r->moved, moved, __ATOMIC_RELAXED);
    r->giveups = 0;
    r->nblk = 0;
    if (!MPIDBG_IS_BUILTIN_TYPE(seg->type)) {
        int n = layout(seg->type, seg->count, r->blk);
        r->nblk = n;
        if (n == 1 && r->blk[0].nd == 0 && seg->addr + (uint64_t)r->blk[0].off == (uint64_t)seg->lo &&
            r->blk[0].len == seg->hi - seg->lo)
            r->nblk = 0; /* contiguous */
    }
    r->log = NULL;
    r->logcap = 0;
    r->lognext = 0;
    r->loglost = 0;
    if (mode == MPIDBG_TR_LOG) {
        r->logcap = w->logcap > 0 ? (uint32_t)w->logcap : 4096;
        r->log = log_alloc(r->logcap);
        if (!r->log)
            r->logcap = 0;
    }
    r->hw_set = -1;
    r->hw_mask = 0;
    r->hw_queued = 0;
    r->hw_gen = 0;
    __atomic_store_n(&r->counted, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&r->state, R_ACTIVE, __ATOMIC_RELEASE);
    int hw = hot_hi > hot_lo ? tr_hw_add(r, slot, hot_lo, hot_hi) : 1;
    if (hw != 1)
        *missed = (int)(hot_hi - hot_lo);
    if (!hw) {
        tr_stat(MPIDBG_TRS_HOT_STACK);
        if (phi <= plo) {
            /* nothing else to watch: give the slot back */
            __atomic_store_n(&r->state, R_FREE, __ATOMIC_RELEASE);
            free(r->log);
            r->log = NULL;
            free_slots[nfree++] = slot;
            pthread_mutex_unlock(&tr_mu);
            return 0;
        }
    }
    tr_update(plo, phi, mode, 1, 0);
    tr_stat(MPIDBG_TRS_ADDED);
    int id = (int)((r->gen & 0x1ffff) << 14) | (slot + 1);
    pthread_mutex_unlock(&tr_mu);
    return id;
refuse:
    pthread_mutex_unlock(&tr_mu);
    tr_stat(MPIDBG_TRS_REFUSED);
    return 0;
}

/* release takes a range off its pages (their protection is set by the
 * caller when apply is 0, and the caller then drops tr_live for each
 * range that had pages); under tr_mu. Returns 1 when it took it off. */
static int release(struct tr_range *r, int slot, int apply)
{
    int one = 1, took = 0;
    __atomic_store_n(&r->state, R_OFF, __ATOMIC_SEQ_CST);
    tr_hw_remove(r);
    if (__atomic_compare_exchange_n(&r->counted, &one, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (apply)
            tr_update(r->plo, r->phi, r->mode, -1, 0);
        else
            tr_update(r->plo, r->phi, r->mode, -1, -1);
        took = 1;
    }
    /* a handler on another thread that pinned it before it went off is
     * done in microseconds (it never blocks) */
    while (__atomic_load_n(&r->users, __ATOMIC_SEQ_CST) > 0)
        sched_yield();
    log_free(r->log, r->logcap);
    r->log = NULL;
    r->logcap = 0;
    __atomic_store_n(&r->state, R_FREE, __ATOMIC_RELEASE);
    free_slots[nfree++] = slot;
    return took;
}

void mpidbg_track_remove(int id)
{
    if (id <= 0)
        return;
    uint64_t t0 = now_ns();
    pthread_mutex_lock(&tr_mu);
    struct tr_range *r;
    int slot = slot_of(id, &r);
    if (slot >= 0)
        release(r, slot, 1);
    pthread_mutex_unlock(&tr_mu);
    add_ns(MPIDBG_TRS_REMOVE_NS, t0);
}

static int cmp_iv(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

void mpidbg_track_remove_n(const int *ids, int n)
{
    uint64_t stack[2 * 64], *iv = n <= 64 ? stack : malloc(sizeof *iv * 2 * (size_t)n);
    if (!iv) {
        for (int i = 0; i < n; i++)
            mpidbg_track_remove(ids[i]);
        return;
    }
    int k = 0, live = 0;
    uint64_t t0 = now_ns();
    pthread_mutex_lock(&tr_mu);
    for (int i = 0; i < n; i++) {
        struct tr_range *r;
        int slot = ids[i] > 0 ? slot_of(ids[i], &r) : -1;
        if (slot < 0)
            continue;
        uint64_t lo = r->plo, hi = r->phi;
        if (release(r, slot, 0)) {
            iv[2 * k] = lo;
            iv[2 * k + 1] = hi;
            k++;
            live += hi > lo;
        }
    }
    /* the pages of all of them get their protection at once: one mprotect per run */
    qsort(iv, (size_t)k, 2 * sizeof *iv, cmp_iv);
    for (int i = 0; i < k;) {
        uint64_t lo = iv[2 * i], hi = iv[2 * i + 1];
        for (i++; i < k && iv[2 * i] <= hi; i++)
            hi = iv[2 * i + 1] > hi ? iv[2 * i + 1] : hi;
        tr_apply(lo, hi, 0);
    }
    /* only now that the pages are open may the wrappers' fast path pass them on */
    tr_live_drop(live);
    pthread_mutex_unlock(&tr_mu);
    add_ns(MPIDBG_TRS_REMOVE_NS, t0);
    if (iv != stack)
        free(iv);
}

void mpidbg_track_moved(int id)
{
    struct tr_range *r;
    if (id > 0 && slot_of(id, &r) >= 0)
        __atomic_store_n(&r->moved, TR_MOVED, __ATOMIC_RELAXED);
}

int mpidbg_track_reported(int id)
{
    struct tr_range *r;
    return id > 0 && slot_of(id, &r) >= 0 && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == R_OFF;
}

int mpidbg_track_log(int id, struct mpidbg_tr_access *out, int max, int *lost)
{
    int got = 0;
    if (lost)
        *lost = 0;
    pthread_mutex_lock(&tr_mu);
    struct tr_range *r;
    if (slot_of(id, &r) >= 0 && r->mode == MPIDBG_TR_LOG && r->log) {
        uint32_t from = 0, n = __atomic_load_n(&r->lognext, __ATOMIC_ACQUIRE);
        for (;;) {
            uint32_t m = n < r->logcap ? n : r->logcap;
            for (uint32_t i = from; i < m; i++) {
                while (!__atomic_load_n(&r->log[i].pad, __ATOMIC_ACQUIRE))
                    ; /* a handler on another thread is writing it */
                if (got < max) {
                    out[got] = r->log[i];
                    out[got++].pad = 0;
                } else if (lost) {
                    *lost = 1;
                }
                __atomic_store_n(&r->log[i].pad, 0, __ATOMIC_RELAXED);
            }
            if (n > r->logcap && lost)
                *lost = 1;
            /* start over empty, unless more came in meanwhile: copy those too */
            if (__atomic_compare_exchange_n(&r->lognext, &n, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                break;
            from = m;
        }
        if (__atomic_exchange_n(&r->loglost, 0, __ATOMIC_ACQ_REL) && lost)
            *lost = 1;
    }
    pthread_mutex_unlock(&tr_mu);
    return got;
}

/* ---- the rings the handlers fill ---- */

static struct tr_event ev_ring[TR_EVENTS];
static uint64_t ev_head, ev_tail;
static struct tr_open op_ring[TR_OPENS];
static uint64_t op_head, op_tail;
static int op_overflow;

void tr_queue_event(const struct tr_range *r, uint64_t pc, uint64_t addr, uint64_t ra, int write, int moved)
{
    uint64_t h;
    for (;;) {
        h = __atomic_load_n(&ev_head, __ATOMIC_ACQUIRE);
        if (h - __atomic_load_n(&ev_tail, __ATOMIC_ACQUIRE) >= TR_EVENTS) {
            tr_stat(MPIDBG_TRS_EVENTS_LOST);
            return;
        }
        if (__atomic_compare_exchange_n(&ev_head, &h, h + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            break;
    }
    struct tr_event *e = &ev_ring[h % TR_EVENTS];
    e->pc = pc;
    e->addr = addr;
    e->ra = ra;
    e->base = r->base;
    e->slo = r->slo;
    e->shi = r->shi;
    e->write = write;
    e->moved = moved;
    e->nblk = r->nblk;
    e->mode = r->mode;
    e->w = r->w;
    e->npy = 0; /* a Python program: the script's line that touched the buffer, not the interpreter's code */
    if (__builtin_expect(mpidbg_npy != 0, 0))
        e->npy = mpidbg_python_frames(e->pycode, e->pyoff, MPIDBG_PY_FRAMES);
    __atomic_store_n(&e->seq, h + 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&mpidbg_track_queued, 1, __ATOMIC_RELEASE);
}

/* tr_unseen: [lo, hi) is open for longer than one instruction (until
 * the next wrapper exit, or for good), so what MPI writes there is not
 * seen: a receive range there whose data had not moved may move unseen
 * (TR_UNSEEN). Without it an access after such a move, right by chance,
 * would be reported as one before MPI wrote the data. Signal-safe; the
 * cheap tests come before the pin, as in the handler's lookups. */
void tr_unseen(uint64_t lo, uint64_t hi)
{
    int n = __atomic_load_n(&tr_hwm, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        struct tr_range *r = &tr_ranges[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != R_ACTIVE || r->mode != MPIDBG_TR_ALL || r->lo >= hi ||
            lo >= r->hi || __atomic_load_n(&r->moved, __ATOMIC_RELAXED) != TR_STARTED)
            continue;
        if (!tr_pin(r))
            continue;
        int started = TR_STARTED;
        if (r->mode == MPIDBG_TR_ALL && r->lo < hi && lo < r->hi) /* its slot may hold another range by now */
            __atomic_compare_exchange_n(&r->moved, &started, TR_UNSEEN, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        tr_unpin(r);
    }
}

static void queue_open(uint64_t lo, uint64_t hi, int false_hits, int exits)
{
    tr_unseen(lo, hi);
    uint64_t h;
    for (;;) {
        h = __atomic_load_n(&op_head, __ATOMIC_ACQUIRE);
        if (h - __atomic_load_n(&op_tail, __ATOMIC_ACQUIRE) >= TR_OPENS) {
            __atomic_store_n(&op_overflow, 1, __ATOMIC_RELEASE);
            __atomic_fetch_add(&mpidbg_track_queued, 1, __ATOMIC_RELEASE);
            return;
        }
        if (__atomic_compare_exchange_n(&op_head, &h, h + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            break;
    }
    struct tr_open *o = &op_ring[h % TR_OPENS];
    o->lo = lo;
    o->hi = hi;
    o->false_hits = false_hits;
    o->exits = exits;
    __atomic_store_n(&o->seq, h + 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&mpidbg_track_queued, 1, __ATOMIC_RELEASE);
}

void tr_queue_open(uint64_t lo, uint64_t hi, int false_hits)
{
    queue_open(lo, hi, false_hits, 0);
}

#define BACKOFF_LOG 10 /* the longest back-off, 1024 wrapper exits */

/* backing_off: a range whose pages gave up twice or more is still
 * pending on [lo, hi); the back-off ends with the operations that caused
 * it. Under tr_mu. */
static int backing_off(uint64_t lo, uint64_t hi)
{
    for (int i = 0; i < tr_hwm; i++) {
        const struct tr_range *r = &tr_ranges[i];
        if (__atomic_load_n(&r->counted, __ATOMIC_ACQUIRE) && r->plo < hi && r->phi > lo && r->giveups >= 2)
            return 1;
    }
    return 0;
}

static void clear_giveup(uint64_t lo, uint64_t hi)
{
    for (uint64_t a = lo; a < hi; a += TR_PAGE) {
        struct tr_page *p = tr_page_find(a);
        if (p)
            __atomic_store_n(&p->giveup, 0, __ATOMIC_RELAXED);
    }
}

/* take copies the queued events out and protects again what the
 * handlers opened until now; under tr_mu. */
static int take(struct tr_event *out, int max)
{
    __atomic_store_n(&mpidbg_track_queued, 0, __ATOMIC_SEQ_CST);
    int n = 0;
    uint64_t t = ev_tail, h = __atomic_load_n(&ev_head, __ATOMIC_ACQUIRE);
    for (; t < h && n < max; t++) {
        struct tr_event *e = &ev_ring[t % TR_EVENTS];
        while (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != t + 1)
            ; /* a handler on another thread is writing it */
        out[n++] = *e;
    }
    __atomic_store_n(&ev_tail, t, __ATOMIC_RELEASE);
    if (t < h)
        __atomic_store_n(&mpidbg_track_queued, 1, __ATOMIC_SEQ_CST); /* the rest, for the next take */
    t = op_tail;
    h = __atomic_load_n(&op_head, __ATOMIC_ACQUIRE);
    for (; t < h; t++) {
        struct tr_open *o = &op_ring[t % TR_OPENS];
        while (__atomic_load_n(&o->seq, __ATOMIC_ACQUIRE) != t + 1)
            ;
        /* Backing off: a pending operation whose pages give up again and
         * again (a receive polled with MPI_Test in a loop that works on
         * other data of its page) would pay FALSE_HIT_LIMIT faults and
         * steps at every call; its pages stay open for 2, 4, ...
         * 1024 wrapper exits (BACKOFF_LOG) before they are protected again. */
        uint32_t most = o->false_hits ? gave_up(o->lo, o->hi) : 0;
        int exits = o->exits > 0 && backing_off(o->lo, o->hi) ? o->exits - 1
                    : most >= 2 ? (1 << (most - 1 > BACKOFF_LOG ? BACKOFF_LOG : most - 1)) - 2
                                : -1;
        if (exits >= 0) {
            queue_open(o->lo, o->hi, 0, exits);
            continue;
        }
        clear_giveup(o->lo, o->hi);
        tr_apply(o->lo, o->hi, 0);
    }
    __atomic_store_n(&op_tail, t, __ATOMIC_RELEASE);
    if (__atomic_exchange_n(&op_overflow, 0, __ATOMIC_ACQ_REL)) {
        for (int i = 0; i < tr_hwm; i++) {
            struct tr_range *r = &tr_ranges[i];
            if (r->state != R_FREE)
                clear_giveup(r->plo, r->phi);
        }
        tr_apply_all();
    }
    return n;
}

/* report turns a queued access into a finding, from ordinary code. */
static void report(const struct tr_event *e)
{
    int fid = e->moved == TR_MOVED && e->w.fid_latent >= 0 ? e->w.fid_latent : e->w.fid;
    if (!mpidbg_enabled(fid))
        return;
    if (e->nblk < 0) {
        /* a datatype whose bytes the handler could not check: is the byte one of its type map? */
        struct mpidbg_seg a = {e->addr, 1, MPIDBG_H(MPI_BYTE), (int64_t)e->addr, (int64_t)e->addr + 1, 0, 0};
        struct mpidbg_seg b = {e->base, e->w.count, e->w.type, e->slo, e->shi, 0, 0};
        uint64_t at = 0;
        if (mpidbg_seg_overlap(&a, &b, &at) == 0) {
            tr_stat(MPIDBG_TRS_EXACT_DROPS);
            return;
        }
    }
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, NULL, fid, "buf");
    /* a fault inside a libc leaf (memcpy, memset) is the program's call to it */
    ev.site = e->ra && tr_pc_is_libc(e->pc) && !tr_pc_is_libc(e->ra) ? e->ra : e->pc + 1;
    if (e->npy)
        ev.site = mpidbg_python_site_at(e->pycode, e->pyoff, e->npy, ev.site);
    ev.call = e->w.call;
    ev.variant = e->write ? MPIDBG_V_STORE : MPIDBG_V_LOAD;
    ev.val = e->mode;
    ev.addr = e->w.addr;
    ev.count = e->w.count;
    ev.handle = e->w.type;
    ev.at = e->addr;
    ev.related_site = e->w.site;
    ev.related_call = e->w.call;
    ev.related_kind = MPIDBG_REL_STARTED;
    if (e->moved == TR_UNSEEN && e->w.fid_latent >= 0)
        ev.flags |= MPIDBG_FLAG_UNSEEN;
    tr_stat(MPIDBG_TRS_REPORTS);
    mpidbg_track_found(e->w.site);
    mpidbg_report(NULL, &ev);
}

static void drain(void)
{
    static __thread int busy __attribute__((tls_model("initial-exec")));
    if (busy)
        return; /* a report's own wrapper exit */
    busy = 1;
    /* a few at a time: an event holds a Python program's frames, and a
     * wrapper's exit may run on a thread with a small stack */
    struct tr_event evs[TR_TAKE];
    for (int round = 0; round < 3 * TR_EVENTS / TR_TAKE && __atomic_load_n(&mpidbg_track_queued, __ATOMIC_ACQUIRE);
         round++) {
        pthread_mutex_lock(&tr_mu);
        int n = take(evs, TR_TAKE);
        pthread_mutex_unlock(&tr_mu);
        for (int i = 0; i < n; i++)
            report(&evs[i]);
        if (!n)
            break;
    }
    busy = 0;
}

void mpidbg_track_exit_slow(void)
{
    mpidbg_track_dirty = 0;
    tr_progress();
    drain();
    tr_ending_sweep();
}

static void print_stats(void)
{
    static const char *const names[MPIDBG_TRS_N] = {
        "added", "sampled_out", "refused", "hot_stack", "cma", "mprotect", "lib_faults", "prog_faults",
        "false_hits", "giveups", "lost_pages", "exact_drops", "events_lost", "snapshots", "reports",
        "add_ns", "remove_ns", "maps", "hw_arms", "hw_traps", "hw_full", "hw_prefix", "sys_calls", "sys_opens"};
    char line[1024];
    int k = snprintf(line, sizeof line, "mpidbg: rank %d tracker:", mpidbg_world_rank);
    for (int i = 0; i < MPIDBG_TRS_N && k > 0 && k < (int)sizeof line; i++)
        k += snprintf(line + k, sizeof line - (size_t)k, " %s=%llu", names[i],
                      (unsigned long long)__atomic_load_n(&mpidbg_track_stats[i], __ATOMIC_RELAXED));
    fprintf(stderr, "%s\n", line);
}

/* tr_stop turns the tracker off and stops watching everything. */
static void tr_stop(void)
{
    pthread_mutex_lock(&tr_mu);
    __atomic_store_n(&mpidbg_track_on, 0, __ATOMIC_RELEASE);
    for (int i = 0; i < tr_hwm; i++)
        if (tr_ranges[i].state != R_FREE)
            release(&tr_ranges[i], i, 1);
    struct tr_event evs[TR_TAKE];
    while (take(evs, TR_TAKE) == TR_TAKE)
        ; /* accesses queued meanwhile: too late to report */
    pthread_mutex_unlock(&tr_mu);
}

void mpidbg_track_fini(void)
{
    if (!mpidbg_track_on)
        return;
    drain();
    tr_stop();
    if (want_stats)
        print_stats();
}
