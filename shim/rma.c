/*
 * One-sided race checks, the hooks: see rma.h for where they
 * are called, rma_win.h for the state, docs/rma-races.md for the design.
 *
 * mpidbg_rma_win_new (window creation, collective): the window's state,
 * a private duplicate of its communicator and every member's disp_unit.
 *
 * mpidbg_rma_op (after MPI, or the forcing mode, accepted an operation):
 *   - origin side: the origin and compare buffers go to the access
 *     tracker write-protected, the result buffer (a Get's origin) with no
 *     access, until the call that completes the operation at the origin
 *     (request-based operations are tracked through their request by
 *     requests.c, not here);
 *   - target side: a record of the bytes the operation touches at its
 *     target, for the synchronisation mode it was issued under (fence,
 *     post/start/complete/wait, passive target).
 *
 * mpidbg_rma_sync_pre (before the PMPI synchronisation call, after the
 * forcing mode issued what it held): the tracker gives back the buffers of
 * the operations the call completes at the origin (fence, complete: all;
 * unlock, flush, flush_local: those to the rank; the _all forms and
 * MPI_Win_free: all); the target stops logging its own accesses when an
 * epoch closes; MPI_Win_complete sends its records to its targets;
 * MPI_Win_free exchanges what is left (the passive-target log).
 *
 * mpidbg_rma_sync_post (after it): epochs open and close; a fence
 * exchanges the closed epoch's records; MPI_Win_wait (MPI_Win_test with
 * flag true) receives them; unlock and flush stamp the Lamport clock on
 * the passive records they complete.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shim.h"
#include "rma_win.h"
#include "rma_lifecycle.h"

int mpidbg_rma_ticking;               /* windows whose passive epochs are compared (rma.h) */
static struct mpidbg_rma_win *wins; /* live windows with state: few, searched linearly */
static int64_t nwins;                /* windows this rank made: the low bits of the ids it proposes */
static uint64_t seq;                 /* this rank's passive-target operations and completions, in order */
/* Per target process (by world rank), on any window: the sequence
 * numbers of this rank's first fetching atomic and of its last
 * accumulate-family update there, 0 none. The atomic flag that orders a
 * hand-over (MPIDBG_RMA_ACQ, MPIDBG_RMA_REL) may live in another window
 * than the data it hands over (a lock word per bucket in a window of its
 * own); MPI-4.1 §12.7 ties no order to the flag and the data sharing a
 * window. Keyed by the target, so that a counter on one process (a task
 * counter on rank 0) hides nothing at the others. */
static struct target_atomics {
    uint64_t fetch, accw;
} *at;
static int32_t at_size;

/* at_target is this rank's atomics at window rank t, NULL when it has
 * no world rank or there is no memory for the table */
static struct target_atomics *at_target(const struct mpidbg_rma_win *w, int t)
{
    if (!at) {
        int n = mpidbg_world_size_get();
        if (n <= 0 || !(at = calloc((size_t)n, sizeof *at)))
            return NULL;
        at_size = n;
    }
    int wr = w->xon && w->world && t >= 0 && t < w->size ? w->world[t] : -1;
    return wr >= 0 && wr < at_size ? &at[wr] : NULL;
}
/* the exclusive locks this rank holds, innermost last: a lock used as a
 * mutex orders what its holders do elsewhere */
#define NMUTEX 16
static __thread struct {
    int64_t wid;
    int rank;
} held[NMUTEX] __attribute__((tls_model("initial-exec"))); /* a thread's own: another's lock orders nothing of this one */
static __thread int nheld __attribute__((tls_model("initial-exec")));
static pthread_mutex_t rma_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rma_cv = PTHREAD_COND_INITIALIZER; /* an exchange ended */

/* Under MPI_THREAD_MULTIPLE several threads may call on windows at once
 * (the exchanges are off then, see mpidbg_rma_win_new). */
void mpidbg_rma_lock(void)
{
    if (mpidbg_mt)
        pthread_mutex_lock(&rma_mu);
}

void mpidbg_rma_unlock(void)
{
    if (mpidbg_mt)
        pthread_mutex_unlock(&rma_mu);
}

/* The category decides for every rank alike (MPIDBG_CHECKS is the job's). */
static int rma_on(void)
{
    return mpidbg_enabled(MPIDBG_F_RMA_CONFLICT);
}

/* tag_update sets the window's tag (rma_win.h) from this rank's state:
 * the tracker copies it into every access to the window memory it logs. */
static void tag_update(struct mpidbg_rma_win *w)
{
    uint64_t t = seq << MPIDBG_RMA_TAG_SEQ;
    if (w->rank >= 0 && w->rank < w->size && w->lock && w->lock[w->rank] == 2)
        t |= MPIDBG_RMA_TAG_EXCL;
    else if (w->lock_all || (w->rank >= 0 && w->rank < w->size && w->lock && w->lock[w->rank] == 1))
        t |= MPIDBG_RMA_TAG_SHARED;
    if (w->pacq)
        t |= MPIDBG_RMA_TAG_ACQ;
    if (nheld)
        t |= MPIDBG_RMA_TAG_MUTEX;
    __atomic_store_n(&w->ptag, t, __ATOMIC_RELAXED);
}

static void tags_update(void)
{
    for (struct mpidbg_rma_win *w = wins; w; w = w->next)
        tag_update(w);
}

/* mpidbg_rma_poll: a window's target-side watch stalled, or waits for the
 * clock to move (rma_passive.c). */
void mpidbg_rma_poll(void)
{
    mpidbg_rma_lock();
    int due = __atomic_exchange_n(&mpidbg_rma_due, 0, __ATOMIC_ACQ_REL), waiting = 0;
    for (struct mpidbg_rma_win *w = wins; w; w = w->next)
        waiting |= mpidbg_rma_passive_step(w, due & MPIDBG_RMA_DUE_STALL);
    if (waiting)
        __atomic_or_fetch(&mpidbg_rma_due, MPIDBG_RMA_DUE_WAIT, __ATOMIC_RELAXED);
    mpidbg_rma_unlock();
}

struct mpidbg_rma_win *mpidbg_rma_win_of(MPI_Win win)
{
    for (;;) {
        struct mpidbg_rma_win *w = wins;
        while (w && w->win != win)
            w = w->next;
        if (!w || !mpidbg_mt || !w->xbusy || pthread_equal(w->xowner, pthread_self()))
            return w;
        pthread_cond_wait(&rma_cv, &rma_mu); /* and look again: the exchange may have freed it */
    }
}

void mpidbg_rma_xbegin(struct mpidbg_rma_win *w)
{
    if (!w->xbusy++)
        w->xowner = pthread_self();
}

void mpidbg_rma_xend(struct mpidbg_rma_win *w)
{
    if (!--w->xbusy && mpidbg_mt)
        pthread_cond_broadcast(&rma_cv);
}

/* ---- windows ---- */

void mpidbg_rma_win_new(struct mpidbg_cx *cx, MPI_Win win, void *base, int64_t size, int disp_unit, MPI_Comm comm)
{
    mpidbg_rma_life_new(cx, win, comm); /* the epoch lifecycle (rma_lifecycle.c), whatever rma_on says */
    if (!cx || win == MPI_WIN_NULL || comm == MPI_COMM_NULL || !rma_on())
        return;
    struct mpidbg_rma_win *w = calloc(1, sizeof *w);
    if (!w)
        return;
    w->win = win;
    w->comm = MPI_COMM_NULL;
    w->accinfo = MPIDBG_RMA_ORD_ALL; /* the defaults, until rma_info.c reads the window's info */
    w->base = base;
    w->wsize = size;
    PMPI_Comm_size(comm, &w->size);
    PMPI_Comm_rank(comm, &w->rank);
    int *flavor = NULL, flag = 0;
    PMPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    w->flavor = flag && flavor ? *flavor : MPI_WIN_FLAVOR_CREATE;
    w->units = calloc((size_t)w->size, sizeof *w->units);
    w->world = calloc((size_t)w->size, sizeof *w->world);
    w->lock = calloc((size_t)w->size, 1);
    w->xcnt = calloc((size_t)w->size * 4, sizeof *w->xcnt);
    w->xc = calloc((size_t)w->size * 4, sizeof *w->xc);
    int64_t *all = calloc((size_t)w->size * 4, sizeof *all);
    /* Every member decides alike: the exchanges are collective, each on
     * the window's own communicator, so threads that synchronise
     * different windows at once (MPI_THREAD_MULTIPLE) keep them apart.
     * Not a duplicate of comm, which would run the program's attribute
     * callbacks (xr_comm.c). Not for intercommunicators (windows have
     * none). */
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (!inter && w->units && w->world && w->lock && w->xcnt && w->xc && all &&
        mpidbg_comm_twin(comm, &w->comm) == MPI_SUCCESS) {
        /* a failure in the shim's own exchange (a receive it had no
         * memory for) stays local and returns */
        PMPI_Comm_set_errhandler(w->comm, MPI_ERRORS_RETURN);
        /* the id is the one member 0 proposes: a hash of its world rank and
         * how many windows it made, whatever order threads make windows
         * in; two live windows share one only by chance (31 bits) */
        uint64_t h = (uint64_t)mpidbg_world_rank << 32 | (uint64_t)__atomic_fetch_add(&nwins, 1, __ATOMIC_RELAXED);
        h *= 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
        int64_t prop = (int64_t)(h & 0x7ffffffe); /* mutex ids shift it by 32 (rma.c, held) */
        int64_t mine[4] = {disp_unit, mpidbg_world_rank, (int64_t)mpidbg_xr_clock, prop};
        mpidbg_tc_publish((uint64_t)mine[2]);
        if (PMPI_Allgather(mine, 4, MPI_INT64_T, all, 4, MPI_INT64_T, w->comm) == MPI_SUCCESS) {
            uint64_t clock = mpidbg_xr_clock;
            for (int i = 0; i < w->size; i++) {
                w->units[i] = (int32_t)all[4 * i];
                w->world[i] = (int32_t)all[4 * i + 1];
                if ((uint64_t)all[4 * i + 2] > clock)
                    clock = (uint64_t)all[4 * i + 2];
            }
            mpidbg_xr_clock_merge(clock); /* the allgather is a synchronisation */
            w->wid = all[3] + 1;
            w->xon = 1;
            /* passive epochs are ordered by the Lamport clock, which only
             * the cross-rank checks keep */
            w->passive_ok = mpidbg_xr_on;
            if (w->passive_ok)
                __atomic_add_fetch(&mpidbg_rma_ticking, 1, __ATOMIC_RELAXED); /* sends tick it (xr_p2p.c) */
        }
    }
    free(all);
    mpidbg_rma_lock();
    w->next = wins;
    wins = w;
    tag_update(w);
    mpidbg_rma_passive_arm(w); /* the target's own accesses, for passive-target epochs */
    mpidbg_rma_unlock();
}

void mpidbg_rma_buf_free(struct mpidbg_rma_buf *b)
{
    free(b->p);
    if (b->tcq)
        for (int s = 0; s < MPIDBG_TC_SLOTS; s++)
            free(b->tcq[s].off);
    free(b->tcq);
    memset(b, 0, sizeof *b);
}

void mpidbg_rma_bufs_clear(struct mpidbg_rma_win *w, int mode)
{
    if (w->rec[mode])
        for (int i = 0; i < w->size; i++) {
            struct mpidbg_rma_buf *b = &w->rec[mode][i];
            b->len = 0;
            b->open = 0;
            if (b->tcq)
                for (int s = 0; s < MPIDBG_TC_SLOTS; s++)
                    b->tcq[s].n = 0;
        }
    w->bytes[mode] = 0;
}

/* tcq_push queues a record made under thread clocks until a flush
 * completes it; 0 when there is no memory (the record is then left
 * out). */
static int tcq_push(struct mpidbg_rma_buf *b, uint32_t slot, size_t off)
{
    if (!b->tcq && !(b->tcq = calloc(MPIDBG_TC_SLOTS, sizeof *b->tcq)))
        return 0;
    struct mpidbg_rma_tcq *q = &b->tcq[slot < MPIDBG_TC_SLOTS ? slot : MPIDBG_TC_SLOTS - 1];
    if (q->n == q->cap) {
        size_t ncap = q->cap ? 2 * q->cap : 16;
        size_t *v = realloc(q->off, sizeof *v * ncap);
        if (!v)
            return 0;
        q->off = v;
        q->cap = ncap;
    }
    q->off[q->n++] = off;
    return 1;
}

static void win_free(struct mpidbg_rma_win *w)
{
    mpidbg_rma_lock();
    for (struct mpidbg_rma_win **p = &wins; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    if (w->passive_ok)
        __atomic_sub_fetch(&mpidbg_rma_ticking, 1, __ATOMIC_RELAXED);
    mpidbg_rma_unlock();
    mpidbg_rma_sends_reap(w, 1);
    if (w->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&w->comm);
    for (int m = 0; m < MPIDBG_RMA_NMODE; m++) {
        if (w->rec[m])
            for (int i = 0; i < w->size; i++)
                mpidbg_rma_buf_free(&w->rec[m][i]);
        free(w->rec[m]);
    }
    free(w->units);
    free(w->world);
    free(w->lock);
    free(w->xcnt);
    free(w->xc);
    free(w->access);
    free(w->expose);
    free(w->trk);
    mpidbg_rma_pending_drop(w);
    free(w->acc);
    mpidbg_rma_passive_drop(w);
    free(w->sreq);
    free(w->sbuf);
    free(w);
}

/* ---- origin buffers ---- */

static void trk_push(struct mpidbg_rma_win *w, int target, int id)
{
    if (w->ntrk == w->trkcap) {
        int ncap = w->trkcap ? 2 * w->trkcap : 16;
        struct mpidbg_rma_trk *n = realloc(w->trk, sizeof *n * (size_t)ncap);
        if (!n) {
            mpidbg_track_remove(id); /* no room to remember it: stop watching now */
            return;
        }
        w->trk = n;
        w->trkcap = ncap;
    }
    w->trk[w->ntrk++] = (struct mpidbg_rma_trk){target, id};
}

/* origin_track hands the operation's buffers to the tracker: those MPI
 * reads write-protected, those it writes without access. */
static void origin_track(struct mpidbg_cx *cx, struct mpidbg_rma_win *w, const struct mpidbg_rma *a)
{
    if (!mpidbg_track_on || !mpidbg_enabled(MPIDBG_F_RMA_ORIGIN_RACE) || !mpidbg_track_sample(cx->site))
        return; /* one sampling decision per operation, for all its buffers */
    mpidbg_sides_ready(cx);
    /* MPI_NO_OP: MPI ignores the origin buffer (MPI-4.1 §12.3.4) */
    int skip_origin = a->op == MPI_NO_OP && mpidbg_rma_class(a->call) >= MPIDBG_RMA_CLS_ACC;
    for (int i = 0; i < cx->nside; i++) {
        struct mpidbg_side *sd = &cx->sides[i];
        if (sd->mode != MPIDBG_WR && skip_origin)
            continue;
        for (int j = 0; j < sd->nseg; j++) {
            const struct mpidbg_seg *seg = &sd->seg[j];
            if (seg->hi <= seg->lo)
                continue;
            struct mpidbg_tr_what what = {
                .fid = MPIDBG_F_RMA_ORIGIN_RACE,
                .fid_latent = -1,
                .call = a->call,
                .moved = 0,
                .site = cx->site,
                .addr = seg->addr,
                .count = seg->count,
                .type = seg->type,
                .sampled = 1,
            };
            int id = mpidbg_track_add(seg, sd->mode == MPIDBG_WR ? MPIDBG_TR_ALL : MPIDBG_TR_STORES, &what, NULL);
            if (id > 0)
                trk_push(w, a->target_rank, id);
        }
    }
}

/* release gives back the buffers of the operations to target (-1: all):
 * the call about to be made completes them at the origin. */
static void release(struct mpidbg_rma_win *w, int target)
{
    /* removed in batches of up to 64, so that the tracker protects its
     * pages again with one mprotect per run of pages */
    int ids[64], n = 0, k = 0;
    for (int i = 0; i < w->ntrk; i++) {
        if (target < 0 || w->trk[i].target == target) {
            if (n == (int)(sizeof ids / sizeof ids[0])) {
                mpidbg_track_remove_n(ids, n);
                n = 0;
            }
            ids[n++] = w->trk[i].id;
        } else
            w->trk[k++] = w->trk[i];
    }
    if (n)
        mpidbg_track_remove_n(ids, n);
    w->ntrk = k;
    mpidbg_rma_pending_release(w, target);
}

/* ---- records ---- */

static struct mpidbg_rma_buf *rec_buf(struct mpidbg_rma_win *w, int mode, int target)
{
    if (!w->rec[mode] && !(w->rec[mode] = calloc((size_t)w->size, sizeof **w->rec)))
        return NULL;
    return &w->rec[mode][target];
}

static void *buf_grow(struct mpidbg_rma_buf *b, size_t n)
{
    if (b->len + n > b->cap) {
        size_t ncap = b->cap ? 2 * b->cap : 1024;
        while (ncap < b->len + n)
            ncap *= 2;
        uint8_t *p = realloc(b->p, ncap);
        if (!p)
            return NULL;
        b->p = p;
        b->cap = ncap;
    }
    void *at = b->p + b->len;
    b->len += n;
    return at;
}

/* basic_of is the basic type (datatype.Basic) of a predefined datatype, or
 * -1 when not known. */
static int32_t basic_of(uint64_t h)
{
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, h);
    return o && o->predef && o->basic > 0 ? o->basic : -1;
}

static int64_t blkbuf[2 * MPIDBG_RMA_MAXBLK];

/* record notes the bytes the operation touches at its target. */
static void record(struct mpidbg_cx *cx, struct mpidbg_rma_win *w, const struct mpidbg_rma *a)
{
    int t = a->target_rank;
    if (t < 0 || t >= w->size || a->target_count <= 0)
        return;
    struct mpidbg_tinfo ti;
    mpidbg_tinfo_get(MPIDBG_H(a->target_type), &ti);
    if (!ti.ok || ti.size <= 0)
        return;
    int mode = w->lock_all || w->lock[t] ? MPIDBG_RMA_PASSIVE : w->pscw_access ? MPIDBG_RMA_PSCW : MPIDBG_RMA_FENCE;
    if (mode == MPIDBG_RMA_PASSIVE && !w->passive_ok)
        return; /* no clock to order passive epochs: they are not compared */
    if (w->bytes[mode] > MPIDBG_RMA_BUDGET)
        return;
    struct mpidbg_rma_rec r;
    memset(&r, 0, sizeof r);
    r.origin = w->rank;
    r.mode = mode;
    r.call = a->call;
    int cls = mpidbg_rma_class(a->call);
    r.kind = cls >= MPIDBG_RMA_CLS_ACC ? MPIDBG_RMA_ACC : cls == MPIDBG_RMA_CLS_GET ? MPIDBG_RMA_READ : MPIDBG_RMA_WRITE;
    if (r.kind == MPIDBG_RMA_ACC) {
        /* a number every rank reads alike, not the handle (an address
         * under Open MPI); a user-defined op, erroneous here, is -2 */
        int opi = MPIDBG_BUILTIN_OP_INDEX(a->op);
        r.op = a->call == MPIDBG_CALL_MPI_Compare_and_swap ? MPIDBG_RMA_OP_CAS : opi ? opi : -2;
        if (a->op == MPI_NO_OP && a->call != MPIDBG_CALL_MPI_Compare_and_swap)
            r.flags |= MPIDBG_RMA_NOOP;
        r.flags |= w->accinfo; /* the orders and ops this origin promised (rma_info.c) */
    }
    if (w->lock[t] == 2)
        r.flags |= MPIDBG_RMA_EXCL;
    r.disp = a->target_disp;
    /* dynamic windows: the displacement is an address at the target */
    int64_t unit = w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : w->units[t];
    if (unit <= 0)
        return; /* not known (no exchange at creation) */
    r.disp_unit = (int32_t)unit;
    int64_t off = a->target_disp * unit;
    int64_t n = 1;
    int32_t basic = -1, esize = 0;
    if (MPIDBG_IS_BUILTIN_TYPE(MPIDBG_H(a->target_type))) {
        blkbuf[0] = off;
        blkbuf[1] = off + a->target_count * ti.size;
        basic = basic_of(MPIDBG_H(a->target_type));
        /* elements end to end: all but the pair types with a gap */
        esize = ti.size == ti.extent && ti.size <= INT32_MAX ? (int32_t)ti.size : 0;
    } else {
        n = mpidbg_go_rma_blocks(MPIDBG_H(a->target_type), a->target_count, blkbuf, MPIDBG_RMA_MAXBLK, &basic, &esize);
        for (int64_t i = 0; i < 2 * n; i++)
            blkbuf[i] += off;
    }
    if (n == 0)
        return;
    struct mpidbg_rma_tc tc;
    if (mode == MPIDBG_RMA_PASSIVE) {
        r.issued_ns = a->issued_ns ? a->issued_ns : (uint64_t)mpidbg_mono_ns();
        r.start = mpidbg_xr_clock;
        r.sstart = ++seq;
        if (mpidbg_tc_running()) {
            memset(&tc, 0, sizeof tc);
            tc.tcount = mpidbg_tc_tick(&tc.tslot);
            mpidbg_tc_snapshot(&tc.vc);
            tc.vc.lamport = mpidbg_tc_start_clock();
            r.flags |= MPIDBG_RMA_TC;
        }
        if (nheld)
            r.mutex = (uint64_t)held[nheld - 1].wid << 32 | (uint32_t)(held[nheld - 1].rank + 1);
        struct target_atomics *ta = at_target(w, t);
        if (w->first_fetch || (ta && ta->fetch))
            r.flags |= MPIDBG_RMA_ACQ;
        if (cls == MPIDBG_RMA_CLS_FETCH) {
            if (!w->first_fetch)
                w->first_fetch = r.sstart;
            if (ta && !ta->fetch)
                ta->fetch = r.sstart;
        }
        if (r.kind == MPIDBG_RMA_ACC && !(r.flags & MPIDBG_RMA_NOOP)) {
            w->last_accw = r.sstart;
            if (ta)
                ta->accw = r.sstart;
        }
    }
    /* More than MPIDBG_RMA_MAXBLK blocks, or a type the model does not
     * know: no record. Its bounds could make a conflict out of
     * interleaved accesses, so it would never be compared; it still
     * counts above for the passive-target order of this origin's calls. */
    if (n < 0)
        return;
    r.basic = basic;
    r.esize = esize;
    r.nblk = (int32_t)n;
    mpidbg_site_code(cx->site, &r.site_off, &r.site_mod);
    struct mpidbg_rma_buf *b = rec_buf(w, mode, t);
    size_t sz = mpidbg_rma_rec_size(&r);
    void *at = b ? buf_grow(b, sz) : NULL;
    if (!at)
        return;
    if ((r.flags & MPIDBG_RMA_TC) && !tcq_push(b, tc.tslot, (size_t)((uint8_t *)at - b->p))) {
        b->len -= sz;
        return;
    }
    memcpy(at, &r, sizeof r);
    memcpy((char *)at + sizeof r, blkbuf, (size_t)n * sizeof(struct mpidbg_rma_blk));
    if (r.flags & MPIDBG_RMA_TC)
        memcpy(mpidbg_rma_rec_tc(at), &tc, sizeof tc);
    w->bytes[mode] += sz;
}

void mpidbg_rma_op(struct mpidbg_cx *cx, const struct mpidbg_rma *a)
{
    if (a->target_rank == MPI_PROC_NULL || !rma_on())
        return;
    mpidbg_rma_lock();
    struct mpidbg_rma_win *w = mpidbg_rma_win_of(a->win);
    if (w) {
        if (!a->request) {
            origin_track(cx, w, a);
            mpidbg_rma_pending_add(cx, w, a);
        }
        if (mpidbg_rma_class(a->call) == MPIDBG_RMA_CLS_FETCH)
            w->pacq = 1; /* an atomic read: perhaps of a flag another rank set */
        if (w->xon)
            record(cx, w, a);
        tag_update(w);
    }
    mpidbg_rma_unlock();
}

/* ---- passive target: the clock at completion ---- */

/* ended stamps the records to target (-1: all) that the call just made
 * completed at the target: a flush or an unlock. Under thread clocks,
 * only those whose call the completing thread knew of: another thread's
 * call that merely came earlier in time is, for the program, not
 * ordered before the flush (MPI-4.1 §3.5), and stays open for a later
 * completion. */
static void ended(struct mpidbg_rma_win *w, int target)
{
    uint64_t c = mpidbg_xr_clock, q = ++seq, t_ns = (uint64_t)mpidbg_mono_ns();
    struct mpidbg_rma_buf *bs = w->rec[MPIDBG_RMA_PASSIVE];
    if (!bs)
        return;
    uint32_t eslot = 0, ecount = 0;
    int on = mpidbg_tc_running();
    for (int t = target < 0 ? 0 : target; t < (target < 0 ? w->size : target + 1); t++) {
        struct mpidbg_rma_buf *b = &bs[t];
        for (size_t off = b->open; off < b->len;) {
            struct mpidbg_rma_rec *r = (struct mpidbg_rma_rec *)(void *)(b->p + off);
            if (!r->send && !(r->flags & MPIDBG_RMA_TC)) { /* those wait in their queue */
                r->end = c;
                r->send = q;
                r->ended_ns = t_ns;
            }
            off += mpidbg_rma_rec_size(r);
        }
        b->open = b->len;
        if (!b->tcq)
            continue;
        for (int s = 0; s < MPIDBG_TC_SLOTS; s++) {
            struct mpidbg_rma_tcq *tq = &b->tcq[s];
            /* the shared last slot's counts come from several threads:
             * no prefix there, every entry is looked at */
            size_t keep = 0;
            for (size_t k = 0; k < tq->n; k++) {
                struct mpidbg_rma_rec *r = (struct mpidbg_rma_rec *)(void *)(b->p + tq->off[k]);
                struct mpidbg_rma_tc *tc = mpidbg_rma_rec_tc(r);
                if (on && !mpidbg_tc_knows(tc->tslot, tc->tcount)) {
                    if (s != MPIDBG_TC_SLOTS - 1) {
                        memmove(&tq->off[keep], &tq->off[k], sizeof tq->off[0] * (tq->n - k));
                        keep += tq->n - k;
                        break;
                    }
                    tq->off[keep++] = tq->off[k];
                    continue;
                }
                if (on && !ecount)
                    ecount = mpidbg_tc_tick(&eslot);
                tc->eslot = eslot;
                tc->ecount = ecount;
                r->end = c;
                r->send = q;
                r->ended_ns = t_ns;
            }
            tq->n = keep;
        }
    }
    tag_update(w);
}

/* released marks the passive records after whose completion this rank
 * updated the window, or any window at the same target, with an
 * accumulate-family operation (MPIDBG_RMA_REL), before they travel. */
static void released(struct mpidbg_rma_win *w)
{
    struct mpidbg_rma_buf *bs = w->rec[MPIDBG_RMA_PASSIVE];
    if (!bs)
        return;
    for (int t = 0; t < w->size; t++) {
        const struct target_atomics *ta = at_target(w, t);
        uint64_t last = ta && ta->accw > w->last_accw ? ta->accw : w->last_accw;
        if (!last)
            continue;
        for (size_t off = 0; off < bs[t].len;) {
            struct mpidbg_rma_rec *r = (struct mpidbg_rma_rec *)(void *)(bs[t].p + off);
            if (last > r->send)
                r->flags |= MPIDBG_RMA_REL;
            off += mpidbg_rma_rec_size(r);
        }
    }
}

static void mutex_held(struct mpidbg_rma_win *w, int rank)
{
    if (nheld < NMUTEX) {
        held[nheld].wid = w->wid;
        held[nheld].rank = rank;
    }
    nheld++;
    tags_update();
}

static void mutex_released(struct mpidbg_rma_win *w, int rank)
{
    for (int i = nheld < NMUTEX ? nheld - 1 : NMUTEX - 1; i >= 0; i--)
        if (held[i].wid == w->wid && held[i].rank == rank) {
            memmove(&held[i], &held[i + 1], sizeof held[0] * (size_t)((nheld < NMUTEX ? nheld : NMUTEX) - i - 1));
            nheld--;
            tags_update();
            return;
        }
    if (nheld > NMUTEX)
        nheld--; /* one beyond the table */
    tags_update();
}

/* group_ranks translates a group (post, start) into window ranks. */
static int group_ranks(struct mpidbg_rma_win *w, MPI_Group g, int **out)
{
    int n = 0;
    MPI_Group wg;
    free(*out);
    *out = NULL;
    if (g == MPI_GROUP_NULL || PMPI_Group_size(g, &n) != MPI_SUCCESS || n <= 0)
        return 0;
    if (PMPI_Win_get_group(w->win, &wg) != MPI_SUCCESS)
        return 0;
    int *in = malloc(sizeof *in * (size_t)n), *res = malloc(sizeof *res * (size_t)n);
    if (in && res) {
        for (int i = 0; i < n; i++)
            in[i] = i;
        if (PMPI_Group_translate_ranks(g, n, in, wg, res) == MPI_SUCCESS) {
            int k = 0;
            for (int i = 0; i < n; i++)
                if (res[i] >= 0 && res[i] < w->size)
                    res[k++] = res[i];
            n = k;
            *out = res;
            res = NULL;
        } else {
            n = 0;
        }
    } else {
        n = 0;
    }
    free(in);
    free(res);
    PMPI_Group_free(&wg);
    return n;
}

/* ---- synchronisation ---- */

void mpidbg_rma_sync_pre(struct mpidbg_cx *cx, struct mpidbg_rma_sync *s)
{
    mpidbg_rma_life_sync_pre(cx, s); /* first: its report goes out before anything reaches MPI */
    if (mpidbg_nasty_on)
        mpidbg_nasty_sync(cx, s);
    switch (s->call) {
    case MPIDBG_CALL_MPI_Win_unlock:
    case MPIDBG_CALL_MPI_Win_flush:
    case MPIDBG_CALL_MPI_Win_flush_local:
        mpidbg_req_rma_flushed(s->win, s->rank);
        break;
    case MPIDBG_CALL_MPI_Win_unlock_all:
    case MPIDBG_CALL_MPI_Win_flush_all:
    case MPIDBG_CALL_MPI_Win_flush_local_all:
        mpidbg_req_rma_flushed(s->win, -1);
        break;
    }
    if (!rma_on())
        return;
    mpidbg_rma_lock();
    struct mpidbg_rma_win *w = mpidbg_rma_win_of(s->win);
    if (!w) {
        mpidbg_rma_unlock();
        return;
    }
    switch (s->call) {
    case MPIDBG_CALL_MPI_Win_fence:
        release(w, -1);
        mpidbg_rma_unwatch(w);
        mpidbg_rma_passive_disarm(w, 0); /* a fence epoch may open */
        break;
    case MPIDBG_CALL_MPI_Win_post:
        mpidbg_rma_passive_disarm(w, 0); /* an exposure epoch opens */
        break;
    case MPIDBG_CALL_MPI_Win_complete:
        release(w, -1);
        if (w->xon)
            mpidbg_rma_pscw_send(w);
        break;
    case MPIDBG_CALL_MPI_Win_unlock:
    case MPIDBG_CALL_MPI_Win_flush:
    case MPIDBG_CALL_MPI_Win_flush_local:
        release(w, s->rank);
        break;
    case MPIDBG_CALL_MPI_Win_unlock_all:
    case MPIDBG_CALL_MPI_Win_flush_all:
    case MPIDBG_CALL_MPI_Win_flush_local_all:
        release(w, -1);
        break;
    case MPIDBG_CALL_MPI_Win_wait:
        mpidbg_rma_unwatch(w);
        break;
    case MPIDBG_CALL_MPI_Win_free:
        release(w, -1);
        mpidbg_rma_unwatch(w);
        mpidbg_rma_passive_disarm(w, 0); /* not paused: nothing arms it again before the window goes */
        if (w->xon) {
            ended(w, -1); /* unfinished passive records (an erroneous program): up to now */
            released(w);
            mpidbg_rma_fence_exchange(w, 1);
        }
        break;
    }
    mpidbg_rma_unlock();
}

/* A window freed inside another MPI call (an attribute's delete callback
 * that MPI_Comm_free runs on every member): its memory stops being
 * watched before MPI frees it, and its state goes once MPI did, without
 * the exchange of a top-level free (the records it would bring are not
 * compared). */
void *mpidbg_rma_nested_free_pre(MPI_Win win)
{
    if (!rma_on())
        return NULL;
    mpidbg_rma_lock();
    struct mpidbg_rma_win *w = mpidbg_rma_win_of(win);
    if (w) {
        release(w, -1);
        mpidbg_rma_unwatch(w);
        mpidbg_rma_passive_disarm(w, 0);
    }
    mpidbg_rma_unlock();
    return w;
}

void mpidbg_rma_nested_free_post(void *w)
{
    if (w)
        win_free(w);
}

void mpidbg_rma_sync_post(struct mpidbg_cx *cx, struct mpidbg_rma_sync *s, int rc)
{
    mpidbg_rma_life_sync_post(cx, s, rc);
    if (!rma_on())
        return;
    mpidbg_rma_lock();
    struct mpidbg_rma_win *w = mpidbg_rma_win_of(s->win);
    if (!w || rc != MPI_SUCCESS) {
        mpidbg_rma_unlock();
        return;
    }
    switch (s->call) {
    case MPIDBG_CALL_MPI_Win_fence:
        if (w->xon) {
            if (s->assert_ & MPI_MODE_NOPRECEDE) { /* given by all or none: no epoch closed */
                mpidbg_rma_bufs_clear(w, MPIDBG_RMA_FENCE);
                w->nacc = 0;
            } else {
                mpidbg_rma_fence_exchange(w, 0);
            }
        }
        w->fence_open = !(s->assert_ & MPI_MODE_NOSUCCEED);
        if (w->fence_open) /* the fence opened an epoch */
            mpidbg_rma_watch(w);
        else
            mpidbg_rma_passive_arm(w);
        break;
    case MPIDBG_CALL_MPI_Win_start:
        w->naccess = group_ranks(w, s->group, &w->access);
        w->pscw_access = 1;
        break;
    case MPIDBG_CALL_MPI_Win_complete:
        w->pscw_access = 0;
        mpidbg_rma_bufs_clear(w, MPIDBG_RMA_PSCW);
        break;
    case MPIDBG_CALL_MPI_Win_post:
        w->nexpose = group_ranks(w, s->group, &w->expose);
        w->pscw_expose = 1;
        w->nacc = 0;
        mpidbg_rma_watch(w);
        break;
    case MPIDBG_CALL_MPI_Win_test:
        if (!s->flag || !*s->flag)
            break; /* the exposure epoch goes on */
        mpidbg_rma_unwatch(w); /* MPI_Win_wait: in the pre hook */
        /* fall through */
    case MPIDBG_CALL_MPI_Win_wait:
        if (w->xon && w->pscw_expose)
            mpidbg_rma_pscw_recv(w);
        w->pscw_expose = 0;
        w->nacc = 0;
        mpidbg_rma_passive_arm(w);
        break;
    case MPIDBG_CALL_MPI_Win_lock:
        if (s->rank >= 0 && s->rank < w->size) {
            w->lock[s->rank] = s->lock_type == MPI_LOCK_EXCLUSIVE ? 2 : 1;
            if (s->lock_type == MPI_LOCK_EXCLUSIVE)
                mutex_held(w, s->rank);
        }
        break;
    case MPIDBG_CALL_MPI_Win_lock_all:
        w->lock_all = 1;
        break;
    case MPIDBG_CALL_MPI_Win_sync:
        w->pacq = 1; /* the memory barrier of a polling loop */
        break;
    case MPIDBG_CALL_MPI_Win_unlock:
        if (s->rank >= 0 && s->rank < w->size) {
            ended(w, s->rank);
            if (w->lock[s->rank] == 2)
                mutex_released(w, s->rank);
            w->lock[s->rank] = 0;
        }
        break;
    case MPIDBG_CALL_MPI_Win_flush:
        if (s->rank >= 0 && s->rank < w->size)
            ended(w, s->rank);
        break;
    case MPIDBG_CALL_MPI_Win_unlock_all:
        ended(w, -1);
        w->lock_all = 0;
        break;
    case MPIDBG_CALL_MPI_Win_flush_all:
        ended(w, -1);
        break;
    case MPIDBG_CALL_MPI_Win_free:
        mpidbg_rma_unlock();
        win_free(w);
        return;
    }
    tag_update(w); /* locks on itself, MPI_Win_sync */
    mpidbg_rma_unlock();
}
