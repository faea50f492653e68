/*
 * The target's own loads and stores to its window memory against
 * passive-target epochs of other processes (rma-target-race): a local
 * access that no synchronisation orders against a remote MPI_Put,
 * MPI_Accumulate, ... under MPI_Win_lock or MPI_Win_lock_all.
 *
 * The target makes no MPI call around such epochs, so the comparison
 * cannot happen at an epoch's end as in fence and PSCW epochs
 * (rma_target.c). Instead each logged access carries the Lamport clock
 * (mpidbg_xr_clock) and the window's tag (MPIDBG_RMA_TAG_*) when it ran;
 * the accesses are collected without repeats and compared at
 * MPI_Win_free, when the passive records arrive (rma_epoch.c), by the
 * rules of mpidbg_rma_passive_check below.
 *
 * Contract:
 *   - arm: outside fence and exposure epochs (window creation, a fence
 *     with MPI_MODE_NOSUCCEED, MPI_Win_wait), the window memory goes to
 *     the tracker in log mode, for sampled watch periods;
 *   - disarm, before a fence or MPI_Win_post opens an epoch and before
 *     MPI_Win_free's exchange: the log is collected and the range
 *     removed;
 *   - the tracker sets mpidbg_rma_due to MPIDBG_RMA_DUE_STALL when a
 *     range's log is full or one of its pages was left open (false hits,
 *     library faults); the next wrapper exit (mpidbg_rma_poll) collects
 *     the watched windows' logs and pauses them until the clock moves,
 *     when the next period starts if the sampling says so.
 * docs/rma-races.md, "The target's own accesses", says why and what it
 * costs.
 */
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "rma_win.h"

#define LOG_CAP 128     /* accesses logged per watch period: about 1.5 ms of faults and steps */
#define PACC_MAX 4096   /* distinct accesses kept per window */
#define HASH_SIZE 8192  /* twice PACC_MAX: open addressing stays short */
#define REPORT_MAX 16   /* findings per window */
#define WORK_MAX 10000000

int mpidbg_rma_due;

/* pause_until_tick pauses the window's watch until the clock moves past
 * clock. */
static void pause_until_tick(struct mpidbg_rma_win *w, uint64_t clock)
{
    w->ppaused = 1;
    w->pclock = clock;
    __atomic_or_fetch(&mpidbg_rma_due, MPIDBG_RMA_DUE_WAIT, __ATOMIC_RELAXED);
}

void mpidbg_rma_passive_arm(struct mpidbg_rma_win *w)
{
    w->ppaused = 0;
    if (w->plog_id || w->log_id || w->fence_open || w->pscw_expose || !w->passive_ok || !mpidbg_rma_watchable(w))
        return;
    /* the first 4 watch periods of a window, then powers of two (a period
     * begins when the clock moves after the last one stalled: about 24 in
     * a million synchronisations) */
    if (!mpidbg_rma_sampled(w->pwatches++, 4)) {
        pause_until_tick(w, mpidbg_xr_clock);
        return;
    }
    /* the tracker stores MPIDBG_RMA_DUE_STALL into mpidbg_rma_due when it gives up on the range */
    w->plog_id = mpidbg_rma_log_window(w, LOG_CAP, &w->ptag, &mpidbg_rma_due);
}

/* key hashes what makes two accesses the same for the comparison. */
static uint64_t key(const struct mpidbg_rma_acc *a)
{
    uint64_t h = (uint64_t)a->off * 0x9e3779b97f4a7c15ull;
    h ^= a->pc + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= a->clock * 0xbf58476d1ce4e5b9ull + (h << 6) + (h >> 2);
    h ^= a->tag * 0x94d049bb133111ebull + (uint64_t)a->write + (h << 6) + (h >> 2);
    return h;
}

static int same(const struct mpidbg_rma_acc *a, const struct mpidbg_rma_acc *b)
{
    return a->off == b->off && a->pc == b->pc && a->clock == b->clock && a->lclock == b->lclock && a->tag == b->tag &&
           a->write == b->write;
}

/* keep adds an access unless it is there already or there is no room. */
static void keep(struct mpidbg_rma_win *w, const struct mpidbg_rma_acc *a)
{
    if (!w->pacc) {
        w->pacc = malloc(sizeof *w->pacc * PACC_MAX);
        w->phash = malloc(sizeof *w->phash * HASH_SIZE);
        if (!w->pacc || !w->phash) {
            free(w->pacc);
            free(w->phash);
            w->pacc = NULL;
            w->phash = NULL;
            return;
        }
        memset(w->phash, 0xff, sizeof *w->phash * HASH_SIZE);
    }
    if (w->npacc >= PACC_MAX)
        return; /* beyond the budget: not compared */
    for (uint64_t i = key(a) % HASH_SIZE;; i = (i + 1) % HASH_SIZE) {
        int32_t k = w->phash[i];
        if (k < 0) {
            w->phash[i] = w->npacc;
            w->pacc[w->npacc++] = *a;
            return;
        }
        if (same(&w->pacc[k], a))
            return;
    }
}

void mpidbg_rma_passive_disarm(struct mpidbg_rma_win *w, int pause)
{
    if (!w->plog_id) {
        if (!pause)
            w->ppaused = 0;
        return;
    }
    uint64_t base = (uint64_t)(uintptr_t)w->base, filled = 0;
    struct mpidbg_tr_access *tmp = malloc(sizeof *tmp * LOG_CAP);
    int n = tmp ? mpidbg_track_log(w->plog_id, tmp, LOG_CAP, NULL) : 0;
    for (int i = 0; i < n; i++) {
        if (tmp[i].clock > filled)
            filled = tmp[i].clock;
        if (tmp[i].pc - mpidbg_mpi_lo < mpidbg_mpi_len)
            continue; /* the MPI library moving data: never the program's */
        struct mpidbg_rma_acc a = {
            .off = (int64_t)(tmp[i].addr - base),
            .pc = tmp[i].pc,
            .clock = tmp[i].clock,
            .tag = tmp[i].tag,
            .write = tmp[i].write,
            .tslot = tmp[i].tslot,
            .tcount = tmp[i].tcount,
            .lclock = tmp[i].lclock,
        };
        keep(w, &a);
    }
    free(tmp);
    mpidbg_track_remove(w->plog_id);
    w->plog_id = 0;
    /* Until the clock moves past the period whose log filled, not past
     * now: the log is collected at the next wrapper's exit, and when that
     * call is a synchronisation (the MPI_Barrier after a loop that
     * initialised the window) the clock has moved already, so the next
     * period starts at once instead of skipping the epoch after it. */
    if (pause)
        pause_until_tick(w, n && filled ? filled : mpidbg_xr_clock);
    else
        w->ppaused = 0;
}

int mpidbg_rma_passive_step(struct mpidbg_rma_win *w, int stalled)
{
    if (w->plog_id && stalled)
        mpidbg_rma_passive_disarm(w, 1); /* this window's range, or another's: all wait for the clock */
    if (w->ppaused && mpidbg_xr_clock != w->pclock)
        mpidbg_rma_passive_arm(w); /* a new watch period, or a pause until the next tick */
    return w->ppaused;
}

void mpidbg_rma_passive_drop(struct mpidbg_rma_win *w)
{
    if (w->plog_id)
        mpidbg_track_remove(w->plog_id);
    w->plog_id = 0;
    w->ppaused = 0;
    free(w->pacc);
    free(w->phash);
    w->pacc = NULL;
    w->phash = NULL;
    w->npacc = 0;
}

/* ---- the comparison ---- */

static int blocks_meet(const struct mpidbg_rma_rec *x, const struct mpidbg_rma_rec *y)
{
    const struct mpidbg_rma_blk *bx = mpidbg_rma_blks(x), *by = mpidbg_rma_blks(y);
    for (int i = 0; i < x->nblk; i++)
        for (int j = 0; j < y->nblk; j++)
            if (bx[i].lo < by[j].hi && by[j].lo < bx[i].hi)
                return 1;
    return 0;
}

/* published says whether access a of this rank may have been handed over
 * to record r's origin through an atomic flag in this rank's window: this
 * rank updated some bytes with an accumulate-family operation after the
 * access (raised the flag), and r's origin accessed the same bytes with
 * an accumulate-family operation (polled the flag) that completed after
 * the flag was raised and that it issued before r. "After" is by the
 * monotonic clock, one for the ranks of a host: a flag raised after the
 * origin's polls before r had completed, or other bytes updated, do not
 * count. Whether the poll saw the flag raised is more than the records
 * say. Ranks on different hosts compare clocks that differ by their
 * hosts' offset. */
static int published(const struct mpidbg_rma_win *w, const struct mpidbg_rma_acc *a, const struct mpidbg_rma_rec *r,
                     const struct mpidbg_rma_rec **recs, int n)
{
    uint64_t q = a->tag >> MPIDBG_RMA_TAG_SEQ;
    for (int i = 0; i < n; i++) {
        const struct mpidbg_rma_rec *rel = recs[i];
        if (rel->origin != w->rank || rel->kind != MPIDBG_RMA_ACC || (rel->flags & MPIDBG_RMA_NOOP) ||
            rel->sstart <= q)
            continue;
        for (int j = 0; j < n; j++) {
            const struct mpidbg_rma_rec *acq = recs[j];
            if (acq->origin == r->origin && acq->kind == MPIDBG_RMA_ACC && acq->sstart < r->sstart &&
                acq->ended_ns > rel->issued_ns && blocks_meet(rel, acq))
                return 1;
        }
    }
    return 0;
}

/* unordered says whether nothing known orders access a of this rank and
 * passive record r (MPI-4.1 §12.7: a location updated by a put or
 * accumulate must not be accessed by a load or store until the update
 * completed at the target, and a location read by a get must not be
 * stored to meanwhile; what completes and orders them is synchronisation). */
static int unordered(const struct mpidbg_rma_win *w, const struct mpidbg_rma_acc *a, const struct mpidbg_rma_rec *r,
                     const struct mpidbg_rma_rec **recs, int n)
{
    if (!a->write && r->kind == MPIDBG_RMA_ACC)
        return 0; /* a load against an atomic update: how programs poll a flag (below) */
    if (r->origin == w->rank) {
        /* its own operation on its own window: issued, and not yet
         * completed by a flush or an unlock, when the access ran */
        uint64_t q = a->tag >> MPIDBG_RMA_TAG_SEQ;
        return r->sstart <= q && (!r->send || q < r->send);
    }
    if (a->tag & MPIDBG_RMA_TAG_EXCL)
        return 0; /* an exclusive lock on its own window excludes every other lock epoch on it */
    if ((a->tag & MPIDBG_RMA_TAG_SHARED) && (r->flags & MPIDBG_RMA_EXCL))
        return 0; /* a shared lock on its own window excludes an exclusive one */
    if (r->mutex && (a->tag & MPIDBG_RMA_TAG_MUTEX))
        return 0; /* both held an exclusive lock: perhaps the same mutex */
    if ((r->flags & MPIDBG_RMA_REL) && (a->tag & MPIDBG_RMA_TAG_ACQ))
        return 0; /* perhaps handed over through an atomic flag, an order the clock does not see */
    if ((r->flags & MPIDBG_RMA_ACQ) && w->last_accw > a->tag >> MPIDBG_RMA_TAG_SEQ && published(w, a, r, recs, n))
        return 0; /* the same the other way: this rank raised a flag after the access, the origin polled it before */
    /* by the clock: the record's epoch ended before the access, or the
     * access came before it started; a chain of messages or collectives
     * between them advanced the clock at each hop. Under thread clocks
     * the access is before the operation only if a thread that knew it
     * published below the operation's start, and after it only if the
     * accessing thread imported above the operation's end (the first
     * access of a run of repeats stands for them: the earliest) */
    if (a->tcount && mpidbg_tc_running())
        return !(a->pub < r->start) && !(r->end < a->lclock);
    return r->start <= a->clock && a->clock <= r->end;
}

void mpidbg_rma_passive_check(struct mpidbg_rma_win *w, const struct mpidbg_rma_rec **recs, int n)
{
    if (!w->npacc || !n || !mpidbg_enabled(MPIDBG_F_RMA_TARGET_RACE))
        return;
    for (int i = 0; i < w->npacc; i++)
        if (w->pacc[i].tcount)
            w->pacc[i].pub = mpidbg_tc_published(w->pacc[i].tslot, w->pacc[i].tcount);
    size_t k = 0;
    struct mpidbg_rma_iv *iv = mpidbg_rma_ivs(recs, n, 0, &k);
    int64_t *reach = iv ? malloc(sizeof *reach * k) : NULL; /* the highest hi among iv[0..i] */
    if (!reach) {
        free(iv);
        return;
    }
    for (size_t i = 0; i < k; i++)
        reach[i] = i && reach[i - 1] > iv[i].hi ? reach[i - 1] : iv[i].hi;
    long work = 0;
    int reported = 0;
    for (int j = 0; j < w->npacc && reported < REPORT_MAX && work < WORK_MAX; j++) {
        const struct mpidbg_rma_acc *a = &w->pacc[j];
        size_t lo = 0, hi = k; /* the first block starting after the byte */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (iv[mid].lo <= a->off)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t i = lo; i-- > 0 && reach[i] > a->off && work < WORK_MAX; work++) {
            if (iv[i].hi <= a->off)
                continue;
            const struct mpidbg_rma_rec *r = recs[iv[i].rec];
            if (!a->write && !mpidbg_rma_rec_writes(r))
                continue; /* two reads */
            if (!unordered(w, a, r, recs, n))
                continue;
            mpidbg_rma_report_target(w, a, r, MPIDBG_EPOCH_PASSIVE);
            reported++;
            break;
        }
    }
    free(reach);
    free(iv);
}
