/*
 * Thread clocks (tclock.h): vector clocks over the threads of this
 * process, carried by the synchronisation the shim sees.
 *
 * A thread's clock lives in its thread-local storage; a synchronisation
 * object's clock in a table keyed by the object's address (entries are
 * never removed: an address reused by another object only orders more).
 * When the table is full, objects share one overflow clock, which also
 * only orders more. Everything here may run in any thread at any time,
 * never in a signal handler, and takes only short spin locks: it is
 * called from inside pthread_mutex_lock and friends.
 *
 * Publication. The Lamport clock (mpidbg_xr_clock) orders this process
 * against others. A remote event can only come after a local event e
 * through a message, collective or RMA exchange that left this process
 * from a thread that already knew e. So each time a thread publishes
 * (sends its Lamport value out), the first value at which each slot's
 * count became known outside is logged; mpidbg_tc_published(e) is the
 * least such value: a remote event whose Lamport clock is not above it
 * cannot have e before it, whatever another thread published earlier or
 * later without knowing e.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "shim.h"
#include "tclock.h"

int mpidbg_tc_on;

static __thread struct {
    uint32_t slot; /* + 1; 0: none yet */
    int busy;      /* inside a lock here: a signal handler's sem_post must not wait for it */
    struct mpidbg_tc_vc vc;
} me __attribute__((tls_model("initial-exec")));

static uint32_t nslots;

static void spin_lock(int *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            sched_yield();
}

static void spin_unlock(int *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* The code of the shim and of the libraries that serve MPI, loaded when
 * the clocks start (MPI_Init_thread has loaded its transports): calls
 * from there are not the program's. A library loaded later is taken
 * for the program's, which can only order more. */
#define RANGES 64
static struct {
    uintptr_t lo, hi;
} ranges[RANGES];
static int nranges;

static int range_cb(struct dl_phdr_info *info, size_t size, void *self)
{
    (void)size;
    int skip = info->dlpi_addr == (uintptr_t)self || (info->dlpi_name && mpidbg_serves_mpi(info->dlpi_name));
    if (!skip)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nranges < RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            ranges[nranges].lo = info->dlpi_addr + ph->p_vaddr;
            ranges[nranges].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            nranges++;
        }
    }
    return 0;
}

void mpidbg_tc_start(void)
{
    /* LLVM's and Intel's OpenMP runtimes synchronise through entry points
     * omp.c does not wrap (__kmpc_*): their teams would look unordered */
    if (dlsym(RTLD_DEFAULT, "__kmpc_fork_call")) {
        mpidbg_tc_why_off = "an OpenMP runtime other than GCC's";
        return;
    }
    static Dl_info self; /* static: gcc takes a local's field passed on for a dangling pointer */
    if (dladdr((void *)&mpidbg_tc_start, &self))
        dl_iterate_phdr(range_cb, self.dli_fbase);
    me.vc.lamport = mpidbg_xr_clock; /* the initialising thread imported all so far */
    __atomic_store_n(&mpidbg_tc_on, 1, __ATOMIC_RELEASE);
}

int mpidbg_tc_edge_from(const void *ra)
{
    if (!mpidbg_tc_edges())
        return 0;
    uintptr_t a = (uintptr_t)ra;
    if (a - mpidbg_mpi_lo < mpidbg_mpi_len)
        return 0;
    for (int i = 0; i < nranges; i++)
        if (a >= ranges[i].lo && a < ranges[i].hi)
            return 0;
    return 1;
}

const char *mpidbg_tc_why_off;

void mpidbg_tc_give_up(const char *why)
{
    if (mpidbg_tc_running() && __atomic_exchange_n(&mpidbg_tc_on, 0, __ATOMIC_ACQ_REL))
        __atomic_store_n(&mpidbg_tc_why_off, why, __ATOMIC_RELEASE);
}

int mpidbg_tc_edges(void)
{
    return mpidbg_tc_running() && !mpidbg_depth;
}

static void vc_max(struct mpidbg_tc_vc *dst, const struct mpidbg_tc_vc *src)
{
    for (int i = 0; i < MPIDBG_TC_SLOTS; i++)
        if (src->c[i] > dst->c[i])
            dst->c[i] = src->c[i];
    if (src->lamport > dst->lamport)
        dst->lamport = src->lamport;
}

uint64_t mpidbg_tc_start_clock(void)
{
    uint64_t l = me.vc.lamport, p = __atomic_load_n(&mpidbg_xr_clock, __ATOMIC_RELAXED);
    return __atomic_load_n(&mpidbg_xr_unsure, __ATOMIC_RELAXED) && p > l ? p : l;
}

uint32_t mpidbg_tc_tick(uint32_t *slot)
{
    if (!me.slot) {
        uint32_t s = __atomic_fetch_add(&nslots, 1, __ATOMIC_RELAXED);
        me.slot = (s < MPIDBG_TC_SLOTS ? s : MPIDBG_TC_SLOTS - 1) + 1;
    }
    uint32_t s = me.slot - 1;
    *slot = s;
    if (me.vc.c[s] >= UINT32_MAX / 2) /* a count about to wrap would look unknown */
        mpidbg_tc_give_up("a thread's event count");
    return ++me.vc.c[s];
}

int mpidbg_tc_knows(uint32_t slot, uint32_t count)
{
    return slot < MPIDBG_TC_SLOTS && me.vc.c[slot] >= count;
}

void mpidbg_tc_snapshot(struct mpidbg_tc_vc *out)
{
    *out = me.vc;
}

void mpidbg_tc_learn(const struct mpidbg_tc_vc *in)
{
    vc_max(&me.vc, in);
}

/* ---- synchronisation objects ---- */

#define OBJS 8192 /* power of two */
#define PROBE 32

struct obj {
    uintptr_t key; /* 0: free */
    int lock;
    struct mpidbg_tc_vc vc;
};

static struct obj objs[OBJS];
static struct obj overflow;

static struct obj *obj_of(const void *p, int add)
{
    uintptr_t k = (uintptr_t)p;
    if (!k)
        return &overflow;
    uint64_t h = (uint64_t)k * 0x9e3779b97f4a7c15ull >> 51; /* 13 bits: OBJS */
    for (uint64_t i = 0; i < PROBE; i++) {
        struct obj *o = &objs[(h + i) & (OBJS - 1)];
        uintptr_t cur = __atomic_load_n(&o->key, __ATOMIC_ACQUIRE);
        if (cur == k)
            return o;
        if (!cur) {
            if (!add)
                return NULL;
            if (__atomic_compare_exchange_n(&o->key, &cur, k, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) || cur == k)
                return o;
        }
    }
    if (!add)
        return NULL;
    __atomic_store_n(&overflow.key, 1, __ATOMIC_RELEASE); /* acquires read it from now on */
    return &overflow;
}

void mpidbg_tc_release(const void *p)
{
    if (me.busy)
        return;
    me.busy = 1;
    struct obj *o = obj_of(p, 1);
    spin_lock(&o->lock);
    vc_max(&o->vc, &me.vc);
    spin_unlock(&o->lock);
    me.busy = 0;
}

void mpidbg_tc_acquire(const void *p)
{
    struct obj *o = obj_of(p, 0);
    /* an object never released into has nothing to teach, unless the
     * table was full when it was: then its clock is the overflow's */
    if (!o) {
        if (!__atomic_load_n(&overflow.key, __ATOMIC_ACQUIRE))
            return;
        o = &overflow;
    }
    if (me.busy)
        return;
    me.busy = 1;
    spin_lock(&o->lock);
    vc_max(&me.vc, &o->vc);
    spin_unlock(&o->lock);
    me.busy = 0;
}

void mpidbg_tc_sync_release(const void *obj)
{
    if (mpidbg_tc_edges())
        mpidbg_tc_release(obj);
}

void mpidbg_tc_sync_acquire(const void *obj)
{
    if (mpidbg_tc_edges())
        mpidbg_tc_acquire(obj);
}

void mpidbg_tc_arrive(struct mpidbg_tc_group *g, unsigned round)
{
    spin_lock(&g->lock);
    vc_max(&g->round[round & 1], &me.vc);
    spin_unlock(&g->lock);
}

void mpidbg_tc_depart(struct mpidbg_tc_group *g, unsigned round)
{
    spin_lock(&g->lock);
    vc_max(&me.vc, &g->round[round & 1]);
    spin_unlock(&g->lock);
}

/* ---- publication ---- */

/* Per slot, the counts that became known outside, in increasing order,
 * each with the least Lamport value any publication that knew it went
 * out with (publications of different threads reach the log in any
 * order of their values). When a log is full, its older half merges
 * pairwise into the later count with the smaller value: a query then
 * gets a value no larger than the true one, which only orders more, and
 * recent counts stay exact. */
#define PUBLOG 256

static struct {
    int lock;
    struct mpidbg_tc_vc max; /* what has been published, per slot */
    uint32_t n[MPIDBG_TC_SLOTS];
    struct {
        uint32_t count;
        uint64_t clock;
    } log[MPIDBG_TC_SLOTS][PUBLOG];
} pub;

static void pub_compact(uint32_t s)
{
    uint32_t k = 0, half = PUBLOG / 2;
    for (uint32_t i = 0; i + 1 < half; i += 2) {
        pub.log[s][k].count = pub.log[s][i + 1].count;
        pub.log[s][k].clock =
            pub.log[s][i].clock < pub.log[s][i + 1].clock ? pub.log[s][i].clock : pub.log[s][i + 1].clock;
        k++;
    }
    for (uint32_t i = half; i < PUBLOG; i++)
        pub.log[s][k++] = pub.log[s][i];
    pub.n[s] = k;
}

/* pub_note: a publication with clock knew slot s up to count. */
static void pub_note(uint32_t s, uint32_t count, uint64_t clock)
{
    uint32_t n = pub.n[s], i = n;
    while (i > 0 && pub.log[s][i - 1].count >= count)
        i--;
    if (i < n && pub.log[s][i].count == count) {
        if (clock < pub.log[s][i].clock)
            pub.log[s][i].clock = clock;
        return;
    }
    if (i < n && pub.log[s][i].clock <= clock)
        return; /* a larger count already went out no later: it answers for this one */
    if (n == PUBLOG) {
        pub_compact(s);
        pub_note(s, count, clock);
        return;
    }
    memmove(&pub.log[s][i + 1], &pub.log[s][i], sizeof pub.log[s][0] * (n - i));
    pub.log[s][i].count = count;
    pub.log[s][i].clock = clock;
    pub.n[s] = n + 1;
}

void mpidbg_tc_publish(uint64_t clock)
{
    if (!mpidbg_tc_running())
        return;
    spin_lock(&pub.lock);
    for (uint32_t s = 0; s < MPIDBG_TC_SLOTS; s++) {
        uint32_t c = me.vc.c[s];
        if (!c)
            continue;
        if (c > pub.max.c[s])
            pub.max.c[s] = c;
        pub_note(s, c, clock);
    }
    spin_unlock(&pub.lock);
}

void mpidbg_tc_import(uint64_t clock)
{
    if (!mpidbg_tc_running())
        return;
    spin_lock(&pub.lock);
    vc_max(&me.vc, &pub.max);
    spin_unlock(&pub.lock);
    /* a Lamport receive: above the message and above the thread's past */
    me.vc.lamport = (clock > me.vc.lamport ? clock : me.vc.lamport) + 1;
}

uint64_t mpidbg_tc_published(uint32_t slot, uint32_t count)
{
    if (slot >= MPIDBG_TC_SLOTS)
        return 0;
    uint64_t best = UINT64_MAX;
    spin_lock(&pub.lock);
    /* counts grow along the log; the clocks of different threads' sends
     * need not, so every entry with a large enough count is looked at */
    for (uint32_t i = pub.n[slot]; i-- > 0 && pub.log[slot][i].count >= count;)
        if (pub.log[slot][i].clock < best)
            best = pub.log[slot][i].clock;
    spin_unlock(&pub.lock);
    return best;
}
