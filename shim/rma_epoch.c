/*
 * Conflicting one-sided operations (rma-conflict): each operation's record
 * (the target bytes it touches, what it does to them, where it was
 * called) travels to its target when its epoch closes, and the target
 * compares the records of one epoch pairwise.
 *
 *   fence      at every MPI_Win_fence (not MPI_MODE_NOPRECEDE: no epoch
 *              closes), collectively on the window's private
 *              communicator: an alltoall of byte counts and clocks, an
 *              alltoallv of records; the clocks merge (a fence orders
 *              everything before it before everything after it);
 *   PSCW       MPI_Win_complete sends its records to each rank of its
 *              access group (MPI_Isend, before PMPI_Win_complete: the
 *              target's MPI_Win_wait cannot return before that, so the
 *              receive in its post never waits for long); MPI_Win_wait
 *              (MPI_Win_test with flag true) receives one message from
 *              each rank of its exposure group;
 *   passive    records stay with their origin, with the Lamport clock
 *              when issued and when completed at the target (the flush or
 *              unlock that completed it), and travel at MPI_Win_free,
 *              collectively, like a fence's. Two records of different
 *              origins are concurrent only when neither completed before
 *              the other started by the clock; with an exclusive lock on
 *              either side, never.
 *
 * Conflict (MPI-4.1 §12.7): a shared byte, at least one of the two writes,
 * and not two compatible accumulate-family operations (why_conflict says
 * which are).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "rma_win.h"

#define TAG_PSCW 1
#define WORK_MAX 10000000 /* pairs looked at per comparison: beyond, the rest is not compared */
#define REPORT_MAX 16     /* findings per comparison */

/* ---- the comparison ---- */

static int32_t acc_op(const struct mpidbg_rma_rec *r)
{
    return r->op == MPIDBG_RMA_OP_CAS ? MPIDBG_OP_REPLACE : r->op;
}

/* acc_reads says whether an accumulate-family record reads its target
 * bytes, for accumulate_ordering: the fetching ones and MPI_NO_OP. */
static int acc_reads(const struct mpidbg_rma_rec *r)
{
    return (r->flags & MPIDBG_RMA_NOOP) || mpidbg_rma_class(r->call) == MPIDBG_RMA_CLS_FETCH;
}

/* acc_ordered says whether MPI orders accumulate a before the later b of
 * the same origin (MPI-4.1 §12.7.2: accumulate_ordering names the orders
 * kept, write after write, read after write, ...; both were issued under
 * them). */
static int acc_ordered(const struct mpidbg_rma_rec *a, const struct mpidbg_rma_rec *b)
{
    uint32_t ord = a->flags & b->flags;
    int ar = acc_reads(a), aw = mpidbg_rma_rec_writes(a), br = acc_reads(b), bw = mpidbg_rma_rec_writes(b);
    return !(aw && bw && !(ord & MPIDBG_RMA_ORD_WAW)) && !(aw && br && !(ord & MPIDBG_RMA_ORD_RAW)) &&
           !(ar && bw && !(ord & MPIDBG_RMA_ORD_WAR)) && !(ar && br && !(ord & MPIDBG_RMA_ORD_RAR));
}

/* acc_why returns 0 when two accumulate-family records that share a byte
 * are compatible, else the variant that says why not (MPI-4.1 §12.7.1:
 * concurrent accumulates to one location are atomic only with the same
 * predefined datatype, the op restrictions of accumulate_ops, and "the
 * outcome of accumulate operations with overlapping types of different
 * sizes or target displacements is undefined"):
 *   - different basic types: ACC_BASIC, also from one origin, whose
 *     accumulates MPI orders "on a per-datatype granularity" only
 *     (§12.7.2);
 *   - one origin, the same basic type, and an order accumulate_ordering
 *     keeps: compatible;
 *   - elements of the same basic type that overlap without starting at
 *     the same byte (skew: how far apart the two blocks that share the
 *     byte start): ACC_ALIGN;
 *   - MPI_NO_OP against another op: compatible under the default
 *     accumulate_ops=same_op_no_op, ACC_NO_OP under same_op (from either
 *     origin's info or the target's, tinfo);
 *   - different ops: ACC_OP (MPI_Compare_and_swap counts as MPI_REPLACE).
 * a is the earlier when both have one origin. */
static int acc_why(const struct mpidbg_rma_rec *a, const struct mpidbg_rma_rec *b, uint32_t tinfo, int64_t skew)
{
    if (a->basic >= 0 && b->basic >= 0 && a->basic != b->basic)
        return MPIDBG_V_ACC_BASIC;
    if (a->origin == b->origin && acc_ordered(a, b))
        return 0;
    if (a->esize > 0 && a->esize == b->esize && skew % a->esize != 0)
        return MPIDBG_V_ACC_ALIGN;
    if ((a->flags | b->flags) & MPIDBG_RMA_NOOP)
        return ((a->flags | b->flags | tinfo) & MPIDBG_RMA_SAME_OP) ? MPIDBG_V_ACC_NO_OP : 0;
    return acc_op(a) == acc_op(b) ? 0 : MPIDBG_V_ACC_OP;
}

/* same_origin_ordered: two passive records of one process are ordered
 * when a flush or unlock completed one at the target before the other
 * was issued. With thread clocks, "before" is the issuing thread's
 * knowledge of that completion (MPI-4.1 §3.5: calls of different threads
 * are concurrent unless the program orders them); otherwise the
 * process's own order of calls. */
static int same_origin_ordered(const struct mpidbg_rma_rec *a, const struct mpidbg_rma_rec *b)
{
    if ((a->flags & b->flags & MPIDBG_RMA_TC)) {
        const struct mpidbg_rma_tc *x = mpidbg_rma_rec_tc(a), *y = mpidbg_rma_rec_tc(b);
        if (x->tslot < MPIDBG_TC_SLOTS && y->tslot < MPIDBG_TC_SLOTS)
            return (x->ecount && x->eslot < MPIDBG_TC_SLOTS && y->vc.c[x->eslot] >= x->ecount) ||
                   (y->ecount && y->eslot < MPIDBG_TC_SLOTS && x->vc.c[y->eslot] >= y->ecount);
    }
    return (a->send && a->send < b->sstart) || (b->send && b->send < a->sstart);
}

/* why_conflict returns 0 when the two records may touch one byte
 * concurrently, else what makes them conflict: the finding's variant
 * (MPIDBG_V_BOTH_WRITE, _WRITES, or acc_why's). a is the earlier when both
 * have one origin (records of one origin arrive in the order issued);
 * skew is how far apart the blocks that share the byte start, a's minus
 * b's; tinfo the target's own window info (MPIDBG_RMA_SAME_OP). */
static int why_conflict(const struct mpidbg_rma_rec *a, const struct mpidbg_rma_rec *b, int passive, uint32_t tinfo,
                        int64_t skew)
{
    int aw = mpidbg_rma_rec_writes(a), bw = mpidbg_rma_rec_writes(b);
    if (!aw && !bw)
        return 0;
    int why = aw && bw ? MPIDBG_V_BOTH_WRITE : MPIDBG_V_WRITES;
    if (a->kind == MPIDBG_RMA_ACC && b->kind == MPIDBG_RMA_ACC && !(why = acc_why(a, b, tinfo, skew)))
        return 0;
    if (passive) {
        if (a->origin == b->origin)
            return same_origin_ordered(a, b) ? 0 : why;
        if ((a->flags | b->flags) & MPIDBG_RMA_EXCL)
            return 0; /* exclusive lock epochs on one target never overlap */
        if (a->mutex && a->mutex == b->mutex)
            return 0; /* both held the same exclusive lock: a mutex */
        if (a->end < b->start || b->end < a->start)
            return 0; /* one completed at the target before the other started, by the clock */
        if (((a->flags & MPIDBG_RMA_REL) && (b->flags & MPIDBG_RMA_ACQ)) ||
            ((b->flags & MPIDBG_RMA_REL) && (a->flags & MPIDBG_RMA_ACQ)))
            return 0; /* perhaps ordered through an atomic flag in some window, which the clock does not see */
    }
    return why;
}

/* access says what a record does to the target's bytes (enum mpidbg_access). */
int mpidbg_rma_access(const struct mpidbg_rma_rec *r)
{
    if (r->kind == MPIDBG_RMA_READ)
        return MPIDBG_ACC_READ;
    if (r->flags & MPIDBG_RMA_NOOP)
        return MPIDBG_ACC_ACC_READ;
    return r->kind == MPIDBG_RMA_ACC ? MPIDBG_ACC_ACC : MPIDBG_ACC_WRITE;
}

/* elem_start is where the element of a block starting at lo that holds
 * byte at starts, for elements of e bytes end to end. */
static int64_t elem_start(int64_t at, int64_t lo, int64_t e)
{
    return at - (at - lo) % e;
}

/* report_conflict: a is the earlier of one origin's two; alo and blo are
 * where the blocks that share byte at start. */
static void report_conflict(struct mpidbg_rma_win *w, const struct mpidbg_rma_rec *a, const struct mpidbg_rma_rec *b,
                            int64_t at, int why, int epoch, int64_t alo, int64_t blo)
{
    /* the first is the lower origin, then the earlier call */
    if (b->origin < a->origin) {
        const struct mpidbg_rma_rec *t = a;
        a = b;
        b = t;
        int64_t l = alo;
        alo = blo;
        blo = l;
    }
    int ra = w->world[a->origin], rb = w->world[b->origin];
    uint64_t ka = a->site_off ^ ((uint64_t)a->site_mod << 40) ^ (uint64_t)ra << 20;
    uint64_t kb = b->site_off ^ ((uint64_t)b->site_mod << 40) ^ (uint64_t)rb << 20;
    if (mpidbg_seen_pair(ka, kb ^ 0x636f6e666c696374ull))
        return;
    struct mpidbg_cx cx;
    memset(&cx, 0, sizeof cx);
    cx.call = a->call;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, &cx, MPIDBG_F_RMA_CONFLICT, "target_disp");
    ev.variant = why;
    ev.flags = MPIDBG_FLAG_REMOTE_SITE; /* the finding's place is the first operation's */
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) /* window space is the target's addresses */
        ev.flags |= MPIDBG_FLAG_DYNAMIC_WINDOW;
    ev.val = at;
    ev.unit = a->disp_unit;
    if (a->kind == MPIDBG_RMA_ACC && b->kind == MPIDBG_RMA_ACC) {
        /* the basic types (datatype.Basic, 0 unknown) and, for ACC_ALIGN,
         * the element size and how far apart the two elements start */
        ev.count = a->basic > 0 ? a->basic : 0;
        ev.count2 = b->basic > 0 ? b->basic : 0;
        if (why == MPIDBG_V_ACC_ALIGN && a->esize > 0) {
            int64_t d = elem_start(at, alo, a->esize) - elem_start(at, blo, a->esize);
            ev.lim = a->esize;
            ev.at = (uint64_t)(d < 0 ? -d : d);
        }
        if (a->origin == b->origin && !acc_ordered(a, b))
            ev.flags |= MPIDBG_FLAG_ACC_UNORDERED; /* the window's accumulate_ordering leaves them unordered */
        if ((a->flags | b->flags | w->accinfo) & MPIDBG_RMA_SAME_OP)
            ev.flags |= MPIDBG_FLAG_SAME_OP;
    }
    if (a->origin == b->origin && (a->flags & b->flags & MPIDBG_RMA_TC) &&
        mpidbg_rma_rec_tc(a)->tslot < MPIDBG_TC_SLOTS && mpidbg_rma_rec_tc(a)->tslot != mpidbg_rma_rec_tc(b)->tslot)
        ev.flags |= MPIDBG_FLAG_THREADS;
    ev.target = w->world[w->rank];
    ev.epoch = epoch;
    ev.nremote = 2;
    ev.remote_rank[0] = ra;
    ev.remote_mod[0] = a->site_mod;
    ev.remote_off[0] = a->site_off;
    ev.remote_call[0] = a->call;
    ev.remote_access[0] = mpidbg_rma_access(a);
    ev.remote_rank[1] = rb;
    ev.remote_mod[1] = b->site_mod;
    ev.remote_off[1] = b->site_off;
    ev.remote_call[1] = b->call;
    ev.remote_access[1] = mpidbg_rma_access(b);
    mpidbg_report(&cx, &ev);
}

static int iv_cmp(const void *x, const void *y)
{
    const struct mpidbg_rma_iv *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

struct mpidbg_rma_iv *mpidbg_rma_ivs(const struct mpidbg_rma_rec **recs, int n, int writers_only, size_t *k)
{
    size_t total = 0;
    *k = 0;
    for (int i = 0; i < n; i++)
        if (!writers_only || mpidbg_rma_rec_writes(recs[i]))
            total += (size_t)recs[i]->nblk;
    struct mpidbg_rma_iv *iv = total ? malloc(sizeof *iv * total) : NULL;
    if (!iv)
        return NULL;
    for (int i = 0; i < n; i++) {
        if (writers_only && !mpidbg_rma_rec_writes(recs[i]))
            continue;
        const struct mpidbg_rma_blk *b = mpidbg_rma_blks(recs[i]);
        for (int j = 0; j < recs[i]->nblk; j++)
            if (b[j].hi > b[j].lo)
                iv[(*k)++] = (struct mpidbg_rma_iv){b[j].lo, b[j].hi, i};
    }
    qsort(iv, *k, sizeof *iv, iv_cmp);
    return iv;
}

/* conflicts compares the records of one epoch at this target: a sweep
 * over their blocks sorted by first byte, each against the blocks still
 * open. */
static void conflicts(struct mpidbg_rma_win *w, const struct mpidbg_rma_rec **recs, int n, int passive, int epoch)
{
    if (n < 2 || !mpidbg_enabled(MPIDBG_F_RMA_CONFLICT))
        return;
    size_t k;
    struct mpidbg_rma_iv *iv = mpidbg_rma_ivs(recs, n, 0, &k);
    struct mpidbg_rma_iv *act = iv ? malloc(sizeof *act * k) : NULL;
    if (!act)
        goto out;
    size_t nact = 0;
    long work = 0;
    int reported = 0;
    for (size_t i = 0; i < k; i++) {
        size_t m = 0;
        for (size_t j = 0; j < nact; j++)
            if (act[j].hi > iv[i].lo)
                act[m++] = act[j];
        nact = m;
        for (size_t j = 0; j < nact; j++) {
            if (++work > WORK_MAX || reported >= REPORT_MAX)
                goto out;
            if (act[j].rec == iv[i].rec)
                continue;
            /* the earlier record first: one origin's arrive in the order issued */
            const struct mpidbg_rma_iv *x = &act[j], *y = &iv[i];
            if (x->rec > y->rec) {
                x = &iv[i];
                y = &act[j];
            }
            int why = why_conflict(recs[x->rec], recs[y->rec], passive, w->accinfo, x->lo - y->lo);
            if (why) {
                report_conflict(w, recs[x->rec], recs[y->rec], iv[i].lo, why, epoch, x->lo, y->lo);
                reported++;
            }
        }
        act[nact++] = iv[i];
    }
out:
    free(iv);
    free(act);
}

/* ---- parsing what arrived ---- */

struct recs {
    const struct mpidbg_rma_rec **r;
    int n, cap;
};

static void recs_push(struct recs *rs, const struct mpidbg_rma_rec *r)
{
    if (rs->n == rs->cap) {
        int ncap = rs->cap ? 2 * rs->cap : 64;
        const struct mpidbg_rma_rec **p = realloc(rs->r, sizeof *p * (size_t)ncap);
        if (!p)
            return;
        rs->r = p;
        rs->cap = ncap;
    }
    rs->r[rs->n++] = r;
}

/* parse splits received bytes into records by mode, checking that each
 * record lies inside the buffer and names a member of the window. */
static void parse(struct mpidbg_rma_win *w, const uint8_t *p, size_t len, struct recs *by_mode)
{
    size_t off = 0;
    while (off + sizeof(struct mpidbg_rma_rec) <= len) {
        const struct mpidbg_rma_rec *r = (const struct mpidbg_rma_rec *)(const void *)(p + off);
        if (r->nblk < 0 || r->nblk > MPIDBG_RMA_MAXBLK || off + mpidbg_rma_rec_size(r) > len)
            return;
        if (r->origin >= 0 && r->origin < w->size && r->mode >= 0 && r->mode < MPIDBG_RMA_NMODE)
            recs_push(&by_mode[r->mode], r);
        off += mpidbg_rma_rec_size(r);
    }
}

static size_t mode_len(struct mpidbg_rma_win *w, int mode, int t)
{
    return w->rec[mode] ? w->rec[mode][t].len : 0;
}

/* ---- fence (and MPI_Win_free) ---- */

/* pair_len is how many bytes of a mode's records for target t go out,
 * within what is left of the pair's allowance: whole records only. */
static size_t pair_len(struct mpidbg_rma_win *w, int mode, int t, size_t room)
{
    size_t len = mode_len(w, mode, t);
    if (len <= room)
        return len;
    const uint8_t *p = w->rec[mode][t].p;
    size_t off = 0;
    while (off < len) {
        size_t n = mpidbg_rma_rec_size((const struct mpidbg_rma_rec *)(const void *)(p + off));
        if (off + n > room)
            break;
        off += n;
    }
    return off;
}

/* mpidbg_rma_fence_exchange: collective over the window's group. Every
 * member calls the same two collectives whatever happens locally; a rank
 * short of memory sends and receives nothing (its receive then fails,
 * locally: the shim's communicator returns errors). final: MPI_Win_free,
 * the passive-target log travels too. */
/* alltoallv_bytes is MPI_Alltoallv_c of bytes, or for an MPI-3 library
 * MPI_Alltoallv with the counts as ints: a rank sends at most
 * MPIDBG_RMA_TARGET_MAX bytes in all, so they fit. */
static int alltoallv_bytes(const void *sbuf, const MPI_Count *sc, const MPI_Count *sd, void *rbuf, const MPI_Count *rc,
                           const MPI_Count *rd, int P, MPI_Comm comm)
{
#if MPI_VERSION >= 4
    (void)P;
    return PMPI_Alltoallv_c(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm);
#else
    int *v = malloc(sizeof *v * 4 * (size_t)P);
    if (!v)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < P; i++) {
        if (sc[i] > INT_MAX || sd[i] > INT_MAX || rc[i] > INT_MAX || rd[i] > INT_MAX) {
            free(v);
            return MPI_ERR_COUNT;
        }
        v[i] = (int)sc[i], v[P + i] = (int)sd[i], v[2 * P + i] = (int)rc[i], v[3 * P + i] = (int)rd[i];
    }
    int err = PMPI_Alltoallv(sbuf, v, v + P, MPI_BYTE, rbuf, v + 2 * P, v + 3 * P, MPI_BYTE, comm);
    free(v);
    return err;
#endif
}

static void fence_exchange(struct mpidbg_rma_win *w, int final);

void mpidbg_rma_fence_exchange(struct mpidbg_rma_win *w, int final)
{
    mpidbg_rma_xbegin(w);
    fence_exchange(w, final);
    mpidbg_rma_xend(w);
}

/* tc_ends gives the passive records made under thread clocks the clocks
 * other processes compare with: as start, the issuing thread's Lamport
 * clock; as end, the first Lamport value with which a thread that knew
 * the completion published (never, if none did or nothing completed the
 * call). Once the clocks were given up, every record keeps the
 * process's clocks, the time order. */
static void tc_ends(struct mpidbg_rma_win *w)
{
    struct mpidbg_rma_buf *bs = w->rec[MPIDBG_RMA_PASSIVE];
    if (!bs)
        return;
    int on = mpidbg_tc_running();
    for (int t = 0; t < w->size; t++)
        for (size_t off = 0; off < bs[t].len;) {
            struct mpidbg_rma_rec *r = (struct mpidbg_rma_rec *)(void *)(bs[t].p + off);
            if (r->flags & MPIDBG_RMA_TC) {
                struct mpidbg_rma_tc *tc = mpidbg_rma_rec_tc(r);
                if (!on) {
                    tc->tslot = UINT32_MAX;
                } else {
                    r->start = tc->vc.lamport;
                    r->end = tc->ecount ? mpidbg_tc_published(tc->eslot, tc->ecount) : UINT64_MAX;
                }
            }
            off += mpidbg_rma_rec_size(r);
        }
}

static void fence_exchange(struct mpidbg_rma_win *w, int final)
{
    int P = w->size;
    int64_t *cnt = w->xcnt, *rcnt = w->xcnt + 2 * P;
    MPI_Count *sc = w->xc, *sd = w->xc + P, *rc = w->xc + 2 * P, *rd = w->xc + 3 * P;
    size_t allow = MPIDBG_RMA_TARGET_MAX / (size_t)P;
    if (allow < MPIDBG_RMA_PAIR_MIN)
        allow = MPIDBG_RMA_PAIR_MIN;
    size_t stotal = 0;
    uint64_t sent = mpidbg_xr_clock;
    if (final)
        tc_ends(w);
    for (int t = 0; t < P; t++) {
        size_t f = pair_len(w, MPIDBG_RMA_FENCE, t, allow);
        size_t q = final ? pair_len(w, MPIDBG_RMA_PASSIVE, t, allow - f) : 0;
        sc[t] = (MPI_Count)(f + q);
        sd[t] = (MPI_Count)stotal;
        stotal += f + q;
    }
    uint8_t *sbuf = malloc(stotal ? stotal : 1), *rbuf = NULL;
    for (int t = 0; t < P; t++) {
        if (!sbuf)
            sc[t] = sd[t] = 0;
        else if (sc[t]) {
            size_t f = pair_len(w, MPIDBG_RMA_FENCE, t, allow);
            if (f)
                memcpy(sbuf + sd[t], w->rec[MPIDBG_RMA_FENCE][t].p, f);
            if ((size_t)sc[t] > f)
                memcpy(sbuf + sd[t] + f, w->rec[MPIDBG_RMA_PASSIVE][t].p, (size_t)sc[t] - f);
        }
        cnt[2 * t] = (int64_t)sc[t];
        cnt[2 * t + 1] = (int64_t)sent;
    }
    mpidbg_tc_publish(sent);
    struct recs by_mode[MPIDBG_RMA_NMODE];
    memset(by_mode, 0, sizeof by_mode);
    mpidbg_rma_unlock();
    int arc = PMPI_Alltoall(cnt, 2, MPI_INT64_T, rcnt, 2, MPI_INT64_T, w->comm);
    mpidbg_rma_lock();
    if (arc != MPI_SUCCESS)
        goto done;
    uint64_t clock = mpidbg_xr_clock;
    size_t rtotal = 0;
    for (int i = 0; i < P; i++) {
        if ((uint64_t)rcnt[2 * i + 1] > clock)
            clock = (uint64_t)rcnt[2 * i + 1];
        rc[i] = (MPI_Count)rcnt[2 * i];
        rd[i] = (MPI_Count)rtotal;
        rtotal += (size_t)rcnt[2 * i];
    }
    mpidbg_xr_clock_merge(clock); /* a fence orders the whole group */
    rbuf = malloc(rtotal ? rtotal : 1);
    if (!rbuf)
        for (int i = 0; i < P; i++)
            rc[i] = rd[i] = 0;
    static uint8_t none[1];
    mpidbg_rma_unlock();
    int err = alltoallv_bytes(sbuf ? (void *)sbuf : (void *)none, sc, sd, rbuf ? (void *)rbuf : (void *)none, rc, rd, P,
                              w->comm);
    mpidbg_rma_lock();
    if (err != MPI_SUCCESS || !rbuf)
        goto done;
    parse(w, rbuf, rtotal, by_mode);
    conflicts(w, by_mode[MPIDBG_RMA_FENCE].r, by_mode[MPIDBG_RMA_FENCE].n, 0,
              final ? MPIDBG_EPOCH_FREED : MPIDBG_EPOCH_FENCE);
    mpidbg_rma_accesses_check(w, by_mode[MPIDBG_RMA_FENCE].r, by_mode[MPIDBG_RMA_FENCE].n, MPIDBG_EPOCH_FENCE);
    if (final && w->passive_ok) {
        conflicts(w, by_mode[MPIDBG_RMA_PASSIVE].r, by_mode[MPIDBG_RMA_PASSIVE].n, 1, MPIDBG_EPOCH_PASSIVE);
        mpidbg_rma_passive_check(w, by_mode[MPIDBG_RMA_PASSIVE].r, by_mode[MPIDBG_RMA_PASSIVE].n);
    }
done:
    for (int m = 0; m < MPIDBG_RMA_NMODE; m++)
        free(by_mode[m].r);
    free(sbuf);
    free(rbuf);
    mpidbg_rma_bufs_clear(w, MPIDBG_RMA_FENCE);
    if (final)
        mpidbg_rma_bufs_clear(w, MPIDBG_RMA_PASSIVE);
    w->nacc = 0;
}

/* ---- post/start/complete/wait ---- */

void mpidbg_rma_sends_reap(struct mpidbg_rma_win *w, int all)
{
    int k = 0;
    for (int i = 0; i < w->nsend; i++) {
        int done = 0;
        if (PMPI_Test(&w->sreq[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            done = 0;
        if (done) {
            free(w->sbuf[i]);
            continue;
        }
        if (all) { /* at MPI_Win_free: nobody will receive it (an erroneous group); the buffer stays */
            PMPI_Request_free(&w->sreq[i]);
            continue;
        }
        w->sreq[k] = w->sreq[i];
        w->sbuf[k] = w->sbuf[i];
        k++;
    }
    w->nsend = k;
}

static void send_push(struct mpidbg_rma_win *w, MPI_Request r, void *buf)
{
    if (w->nsend == w->sendcap) {
        int ncap = w->sendcap ? 2 * w->sendcap : 8;
        MPI_Request *nr = realloc(w->sreq, sizeof *nr * (size_t)ncap);
        if (nr)
            w->sreq = nr;
        void **nb = realloc(w->sbuf, sizeof *nb * (size_t)ncap);
        if (nb)
            w->sbuf = nb;
        if (!nr || !nb) {
            PMPI_Request_free(&r); /* completes anyway; the buffer leaks */
            return;
        }
        w->sendcap = ncap;
    }
    w->sreq[w->nsend] = r;
    w->sbuf[w->nsend] = buf;
    w->nsend++;
}

void mpidbg_rma_pscw_send(struct mpidbg_rma_win *w)
{
    mpidbg_rma_sends_reap(w, 0);
    uint64_t clock = mpidbg_xr_clock_tick();
    mpidbg_tc_publish(clock);
    for (int i = 0; i < w->naccess; i++) {
        int t = w->access[i];
        size_t n = mode_len(w, MPIDBG_RMA_PSCW, t);
        if (n + sizeof clock > INT_MAX)
            n = 0; /* too much to say: the clock alone */
        uint8_t *buf = malloc(sizeof clock + n);
        MPI_Request r;
        if (!buf) {
            /* the target waits for a message: an empty one */
            static uint8_t none[1];
            if (PMPI_Isend(none, 0, MPI_BYTE, t, TAG_PSCW, w->comm, &r) == MPI_SUCCESS)
                PMPI_Request_free(&r);
            continue;
        }
        memcpy(buf, &clock, sizeof clock);
        if (n)
            memcpy(buf + sizeof clock, w->rec[MPIDBG_RMA_PSCW][t].p, n);
        if (PMPI_Isend(buf, (int)(n + sizeof clock), MPI_BYTE, t, TAG_PSCW, w->comm, &r) != MPI_SUCCESS) {
            free(buf);
            continue;
        }
        send_push(w, r, buf);
    }
}

/* mpidbg_rma_pscw_recv takes one message from each rank of the exposure
 * group: their MPI_Win_complete sent it before the PMPI call this
 * MPI_Win_wait waited for. */
static void pscw_recv(struct mpidbg_rma_win *w);

void mpidbg_rma_pscw_recv(struct mpidbg_rma_win *w)
{
    mpidbg_rma_xbegin(w);
    pscw_recv(w);
    mpidbg_rma_xend(w);
}

static void pscw_recv(struct mpidbg_rma_win *w)
{
    struct recs by_mode[MPIDBG_RMA_NMODE];
    memset(by_mode, 0, sizeof by_mode);
    uint8_t **bufs = calloc((size_t)(w->nexpose ? w->nexpose : 1), sizeof *bufs);
    uint64_t clock = mpidbg_xr_clock;
    for (int i = 0; i < w->nexpose; i++) {
        MPI_Message m;
        MPI_Status st;
        int n = 0;
        mpidbg_rma_unlock();
        int prc = PMPI_Mprobe(w->expose[i], TAG_PSCW, w->comm, &m, &st);
        mpidbg_rma_lock();
        if (prc != MPI_SUCCESS)
            continue;
        PMPI_Get_count(&st, MPI_BYTE, &n);
        uint8_t *buf = bufs && n >= 0 ? malloc(n > 0 ? (size_t)n : 1) : NULL;
        static uint8_t none[1];
        if (!buf) {
            /* take it off the queue all the same (the receive fails, locally) */
            PMPI_Mrecv(none, 0, MPI_BYTE, &m, MPI_STATUS_IGNORE);
            continue;
        }
        bufs[i] = buf;
        if (PMPI_Mrecv(buf, n, MPI_BYTE, &m, MPI_STATUS_IGNORE) != MPI_SUCCESS || (size_t)n < sizeof clock)
            continue;
        uint64_t c;
        memcpy(&c, buf, sizeof c);
        if (c > clock)
            clock = c;
        parse(w, buf + sizeof c, (size_t)n - sizeof c, by_mode); /* 8-byte aligned: malloc'd, after 8 bytes */
    }
    mpidbg_xr_clock_merge(clock);
    conflicts(w, by_mode[MPIDBG_RMA_PSCW].r, by_mode[MPIDBG_RMA_PSCW].n, 0, MPIDBG_EPOCH_PSCW);
    mpidbg_rma_accesses_check(w, by_mode[MPIDBG_RMA_PSCW].r, by_mode[MPIDBG_RMA_PSCW].n, MPIDBG_EPOCH_PSCW);
    if (bufs)
        for (int i = 0; i < w->nexpose; i++)
            free(bufs[i]);
    free(bufs);
    for (int m = 0; m < MPIDBG_RMA_NMODE; m++)
        free(by_mode[m].r);
}
