/*
 * The role checks: one function per parameter role of shim/calls.tbl,
 * called by the generated wrappers before the PMPI call. Each is a few
 * comparisons and at most a handle-map lookup; a finding goes to
 * mpidbg_report, which is the only way into Go.
 *
 * The rules and where the standard states them:
 *   counts        MPI-4.1 §3.2.2 (non-negative)
 *   ranks         §3.2.3 (dest: a rank of comm or MPI_PROC_NULL), §3.2.4
 *                 (source may be MPI_ANY_SOURCE), §3.11 (MPI_PROC_NULL);
 *                 on an intercommunicator ranks name the remote group
 *                 (§7.6.1)
 *   tags          §3.2.3 (0..MPI_TAG_UB), §3.2.4 (MPI_ANY_TAG in receives)
 *   roots         §6.1 (a rank of comm); intercommunicators: MPI_ROOT,
 *                 MPI_PROC_NULL or a rank of the remote group (§6.2.2)
 *   MPI_IN_PLACE  §6.2.2 and each collective's section; never on an
 *                 intercommunicator
 *   significance  the arguments a rank does not use (a receive buffer
 *                 away from the root, §6.5) are not checked
 */
#include <stdlib.h>
#include <string.h>

#include "shim.h"

static void report_plain(struct mpidbg_cx *cx, int fid, int variant, const char *arg, int index, int64_t val, int64_t lim)
{
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, fid, arg);
    ev.variant = variant;
    ev.index = index;
    ev.val = val;
    ev.lim = lim;
    mpidbg_report(cx, &ev);
}

/* report_handle reports a finding about handle h of kind hkind (enum
 * mpidbg_hkind), which says both what to call it and, for Open MPI,
 * whether MPI may follow it (finding.c). */
static void report_handle(struct mpidbg_cx *cx, int fid, int variant, const char *arg, int index, uint64_t h,
                          int hkind, uint64_t rel_site, int rel_call, int rel_kind)
{
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, fid, arg);
    ev.variant = variant;
    ev.index = index;
    ev.handle = h;
    ev.hkind = hkind;
    ev.related_site = rel_site;
    ev.related_call = rel_call;
    ev.related_kind = rel_kind;
    mpidbg_report(cx, &ev);
}

/* ---- handles ---- */

struct mpidbg_cobj *mpidbg_chk_comm(struct mpidbg_cx *cx, MPI_Comm c, const char *arg)
{
    cx->comm = MPIDBG_H(c);
    if (MPIDBG_LIKELY(c == MPI_COMM_WORLD))
        return cx->co = mpidbg_world;
    if (MPIDBG_UNLIKELY(c == MPI_COMM_NULL)) {
        report_handle(cx, MPIDBG_F_INVALID_HANDLE, MPIDBG_V_NULL, arg, -1, MPIDBG_H(c), MPIDBG_HK_COMM, 0, -1, MPIDBG_REL_NONE);
        return NULL;
    }
    struct mpidbg_cobj *o = mpidbg_hmap_get(&mpidbg_comms, MPIDBG_H(c));
    if (MPIDBG_UNLIKELY(!o) && (o = mpidbg_adopt_comm(MPIDBG_H(c))))
        return cx->co = o;
    if (MPIDBG_UNLIKELY(!o || o->freed)) {
        report_handle(cx, MPIDBG_F_INVALID_HANDLE, o ? MPIDBG_V_FREED : MPIDBG_V_UNKNOWN, arg, -1, MPIDBG_H(c),
                      MPIDBG_HK_COMM, o ? o->rec->site : 0, o ? o->call : -1, o ? MPIDBG_REL_CREATED : MPIDBG_REL_NONE);
        return NULL;
    }
    cx->co = o;
    return o;
}

int mpidbg_chk_group(struct mpidbg_cx *cx, MPI_Group g, const char *arg)
{
    if (g == MPI_GROUP_EMPTY)
        return 1;
    if (g == MPI_GROUP_NULL) {
        report_handle(cx, MPIDBG_F_INVALID_HANDLE, MPIDBG_V_NULL, arg, -1, MPIDBG_H(g), MPIDBG_HK_GROUP, 0, -1, MPIDBG_REL_NONE);
        return 0;
    }
    struct mpidbg_gobj *o = mpidbg_hmap_get(&mpidbg_groups, MPIDBG_H(g));
    if (!o && mpidbg_adopt_group(MPIDBG_H(g)))
        return 1;
    if (!o || (!o->predef && o->refs <= 0)) {
        report_handle(cx, MPIDBG_F_INVALID_HANDLE, o ? MPIDBG_V_FREED : MPIDBG_V_UNKNOWN, arg, -1, MPIDBG_H(g),
                      MPIDBG_HK_GROUP, o ? o->rec->site : 0, o ? o->call : -1, o ? MPIDBG_REL_CREATED : MPIDBG_REL_NONE);
        return 0;
    }
    return 1;
}

int mpidbg_chk_op(struct mpidbg_cx *cx, MPI_Op op, const char *arg)
{
    if (MPIDBG_LIKELY(MPIDBG_IS_BUILTIN_OP(op)))
        return 1;
    if (op == MPI_OP_NULL) {
        report_handle(cx, MPIDBG_F_INVALID_HANDLE, MPIDBG_V_NULL, arg, -1, MPIDBG_H(op), MPIDBG_HK_OP, 0, -1, MPIDBG_REL_NONE);
        return 0;
    }
    struct mpidbg_oobj *o = mpidbg_hmap_get(&mpidbg_ops, MPIDBG_H(op));
    if (!o && mpidbg_adopt_op(MPIDBG_H(op)))
        return 1;
    if (!o || !(o->rec->state & MPIDBG_LIVE)) {
        report_handle(cx, MPIDBG_F_INVALID_HANDLE, o ? MPIDBG_V_FREED : MPIDBG_V_UNKNOWN, arg, -1, MPIDBG_H(op),
                      MPIDBG_HK_OP, o ? o->rec->site : 0, o ? o->call : -1, o ? MPIDBG_REL_CREATED : MPIDBG_REL_NONE);
        return 0;
    }
    return 1;
}

struct mpidbg_wobj *mpidbg_chk_win(struct mpidbg_cx *cx, MPI_Win w, const char *arg)
{
    if (w == MPI_WIN_NULL) {
        report_handle(cx, MPIDBG_F_INVALID_HANDLE, MPIDBG_V_NULL, arg, -1, MPIDBG_H(w), MPIDBG_HK_WIN, 0, -1, MPIDBG_REL_NONE);
        return NULL;
    }
    struct mpidbg_wobj *o = mpidbg_hmap_get(&mpidbg_wins, MPIDBG_H(w));
    if (!o && (o = mpidbg_adopt_win(MPIDBG_H(w))))
        return cx->wo = o;
    if (!o || !(o->rec->state & MPIDBG_LIVE)) {
        report_handle(cx, MPIDBG_F_INVALID_HANDLE, o ? MPIDBG_V_FREED : MPIDBG_V_UNKNOWN, arg, -1, MPIDBG_H(w),
                      MPIDBG_HK_WIN, o ? o->rec->site : 0, o ? o->call : -1, o ? MPIDBG_REL_CREATED : MPIDBG_REL_NONE);
        return NULL;
    }
    cx->wo = o;
    return o;
}

/* ---- counts and arrays ---- */

void mpidbg_bad_count(struct mpidbg_cx *cx, int64_t count, const char *arg)
{
    report_plain(cx, MPIDBG_F_NEGATIVE_COUNT, 0, arg, -1, count, 0);
}

static int64_t elem_at(const void *a, size_t elem, int64_t i)
{
    return elem == 4 ? (int64_t)((const int32_t *)a)[i] : ((const int64_t *)a)[i];
}

int mpidbg_chk_counts(struct mpidbg_cx *cx, const void *counts, size_t elem, int64_t n, const char *arg)
{
    if (!counts)
        return 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t c = elem_at(counts, elem, i);
        if (c < 0) {
            report_plain(cx, MPIDBG_F_NEGATIVE_COUNT, 0, arg, (int)i, c, 0);
            return 0;
        }
    }
    return 1;
}

int mpidbg_chk_array(struct mpidbg_cx *cx, const void *a, int64_t n, const char *arg)
{
    if (MPIDBG_LIKELY(a != NULL) || n <= 0)
        return 1;
    report_plain(cx, MPIDBG_F_NULL_ARRAY, 0, arg, -1, n, 0);
    return 0;
}

/* ---- datatypes ---- */

int mpidbg_chk_type(struct mpidbg_cx *cx, MPI_Datatype t, const char *arg, int commit, struct mpidbg_tinfo *ti)
{
    int r = mpidbg_tinfo_get(MPIDBG_H(t), ti);
    if (MPIDBG_LIKELY(r == 0))
        return 1;
    if (r == 2 && mpidbg_adopt_type(MPIDBG_H(t)))
        r = mpidbg_tinfo_get(MPIDBG_H(t), ti);
    if (r == 0)
        return 1;
    switch (r) {
    case 1:
        report_handle(cx, MPIDBG_F_TYPE_NULL, MPIDBG_V_NULL, arg, -1, MPIDBG_H(t), MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        break;
    case 2:
        report_handle(cx, MPIDBG_F_TYPE_UNKNOWN, MPIDBG_V_UNKNOWN, arg, -1, MPIDBG_H(t), MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        break;
    case 3: {
        struct mpidbg_ev ev;
        mpidbg_ev_init(&ev, cx, MPIDBG_F_TYPE_FREED, arg);
        ev.handle = MPIDBG_H(t);
        ev.hkind = MPIDBG_HK_TYPE;
        struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, MPIDBG_H(t));
        if (o && o->rec) {
            ev.related_site = o->rec->free_site;
            ev.related_call = MPIDBG_CALL_MPI_Type_free;
            ev.related_kind = MPIDBG_REL_FREED;
        }
        mpidbg_report(cx, &ev);
        return 0;
    }
    case 4:
        if (!commit)
            return 1;
        report_handle(cx, MPIDBG_F_TYPE_NOT_COMMITTED, 0, arg, -1, MPIDBG_H(t), MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        return 1; /* the layout is known: the buffer checks can go on */
    }
    return 0;
}

int mpidbg_chk_types(struct mpidbg_cx *cx, const MPI_Datatype *t, const void *counts, size_t elem, int64_t n,
                     const char *arg, int commit)
{
    if (!t)
        return 0;
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        if (counts && elem_at(counts, elem, i) <= 0)
            continue;
        struct mpidbg_tinfo ti;
        int r = mpidbg_tinfo_get(MPIDBG_H(t[i]), &ti);
        if (r == 2 && mpidbg_adopt_type(MPIDBG_H(t[i])))
            r = mpidbg_tinfo_get(MPIDBG_H(t[i]), &ti);
        if (r == 0 || (r == 4 && !commit))
            continue;
        struct mpidbg_ev ev;
        static const int fid[] = {0, MPIDBG_F_TYPE_NULL, MPIDBG_F_TYPE_UNKNOWN, MPIDBG_F_TYPE_FREED,
                                  MPIDBG_F_TYPE_NOT_COMMITTED};
        mpidbg_ev_init(&ev, cx, fid[r], arg);
        ev.index = (int)i;
        ev.handle = MPIDBG_H(t[i]);
        ev.hkind = MPIDBG_HK_TYPE;
        ev.variant = r == 1 ? MPIDBG_V_NULL : r == 2 ? MPIDBG_V_UNKNOWN : 0;
        mpidbg_report(cx, &ev);
        ok = 0;
        break;
    }
    return ok;
}

/* ---- ranks, tags, roots ---- */

/* The inline rank checks (shim.h) pass the common case: an
 * intracommunicator rank; these take the rest. */
void mpidbg_bad_dest(struct mpidbg_cx *cx, int dest, const char *arg)
{
    struct mpidbg_cobj *c = cx->co;
    if (!c)
        return;
    int n = c->inter ? c->remote_size : c->size;
    if ((dest >= 0 && dest < n) || dest == MPI_PROC_NULL)
        return;
    report_plain(cx, MPIDBG_F_INVALID_RANK, dest == MPI_ANY_SOURCE ? MPIDBG_V_ANY_SOURCE : c->inter ? MPIDBG_V_INTER : 0,
                 arg, -1, dest, n);
}

void mpidbg_bad_source(struct mpidbg_cx *cx, int source, const char *arg)
{
    struct mpidbg_cobj *c = cx->co;
    if (!c)
        return;
    int n = c->inter ? c->remote_size : c->size;
    if ((source >= 0 && source < n) || source == MPI_PROC_NULL || source == MPI_ANY_SOURCE)
        return;
    report_plain(cx, MPIDBG_F_INVALID_RANK, c->inter ? MPIDBG_V_INTER : MPIDBG_V_RECV, arg, -1, source, n);
}

/* mpidbg_chk_trank checks the target rank of a one-sided call: a rank of
 * the window's group or MPI_PROC_NULL (MPI-4.1 §12.3). */
void mpidbg_chk_trank(struct mpidbg_cx *cx, int rank, const char *arg)
{
    cx->peer = rank;
    cx->null_send = cx->null_recv = rank == MPI_PROC_NULL;
    struct mpidbg_wobj *w = cx->wo;
    if (!w || w->size <= 0)
        return;
    if ((rank >= 0 && rank < w->size) || rank == MPI_PROC_NULL)
        return;
    report_plain(cx, MPIDBG_F_INVALID_RANK, 0, arg, -1, rank, w->size);
}

void mpidbg_bad_tag(struct mpidbg_cx *cx, int tag, const char *arg, int recv)
{
    int variant = recv ? MPIDBG_V_RECV : tag == MPI_ANY_TAG ? MPIDBG_V_ANY_TAG : 0;
    report_plain(cx, MPIDBG_F_INVALID_TAG, variant, arg, -1, tag, mpidbg_tag_ub);
}

/* mpidbg_chk_root checks root and works out which arguments this rank
 * uses: at_root (the root's arguments) and at_leaf (those of every
 * process that sends to or receives from the root). On an
 * intercommunicator the root group passes MPI_ROOT (the root) or
 * MPI_PROC_NULL (nothing is significant), the other group the root's
 * rank in the remote group (MPI-4.1 §6.2.2). */
void mpidbg_chk_root(struct mpidbg_cx *cx, int root, const char *arg)
{
    struct mpidbg_cobj *c = cx->co;
    cx->root_given = 1;
    cx->at_root = 0;
    cx->at_leaf = 0;
    if (!c)
        return;
    if (!c->inter) {
        cx->at_leaf = 1;
        if (MPIDBG_LIKELY(root >= 0 && root < c->size)) {
            cx->at_root = root == c->rank;
            return;
        }
        report_plain(cx, MPIDBG_F_INVALID_ROOT, 0, arg, -1, root, c->size);
        return;
    }
    if (root == MPI_ROOT) {
        cx->at_root = 1;
        return;
    }
    if (root == MPI_PROC_NULL)
        return;
    if (root >= 0 && root < c->remote_size) {
        cx->at_leaf = 1;
        return;
    }
    report_plain(cx, MPIDBG_F_INVALID_ROOT, MPIDBG_V_INTER, arg, -1, root, c->remote_size);
}

/* Process counts that size the arrays and buffers of collectives: the
 * group size, or the remote group's on an intercommunicator; the
 * neighbour counts of a process topology. */
int64_t mpidbg_nproc(struct mpidbg_cx *cx)
{
    struct mpidbg_cobj *c = cx->co;
    if (!c)
        return 0;
    return c->inter ? c->remote_size : c->size;
}

/* The size of the process's own group, intercommunicator or not: the
 * reduce-scatter family's recvcounts and send buffer (MPI-4.1 §6.10.1,
 * §6.10.2: "n is the number of processes in the local group"). */
int64_t mpidbg_ngroup(struct mpidbg_cx *cx)
{
    return cx->co ? cx->co->size : 0;
}

int64_t mpidbg_nin(struct mpidbg_cx *cx)
{
    return cx->co && cx->co->indeg > 0 ? cx->co->indeg : 0;
}

int64_t mpidbg_nout(struct mpidbg_cx *cx)
{
    return cx->co && cx->co->outdeg > 0 ? cx->co->outdeg : 0;
}

int mpidbg_myrank(struct mpidbg_cx *cx)
{
    return cx->co ? cx->co->rank : 0;
}

/* ---- buffers ---- */

/* mpidbg_sig says whether this rank uses a buffer side (and its count
 * and datatype), and checks MPI_IN_PLACE: a side given as MPI_IN_PLACE
 * where it is allowed is not used; elsewhere it is a finding. */
int mpidbg_sig(struct mpidbg_cx *cx, const void *buf, const char *arg, int sig, int inplace)
{
    int significant;
    switch (sig) {
    case MPIDBG_SIG_ROOT:
        significant = cx->at_root;
        break;
    case MPIDBG_SIG_LEAF:
        significant = cx->at_leaf;
        break;
    case MPIDBG_SIG_BOTH:
        significant = cx->at_root || cx->at_leaf;
        break;
    default:
        significant = 1;
    }
    if (MPIDBG_LIKELY(buf != MPI_IN_PLACE) || !significant)
        return significant;
    int inter = cx->co && cx->co->inter;
    int allowed = !inter && (inplace == MPIDBG_INPLACE_ANY || (inplace == MPIDBG_INPLACE_ROOT && cx->at_root));
    if (!allowed) {
        int variant = inplace == MPIDBG_INPLACE_NO ? MPIDBG_V_P2P : inter ? MPIDBG_V_INTERCOMM : MPIDBG_V_NOT_ROOT;
        report_plain(cx, MPIDBG_F_IN_PLACE_MISUSE, variant, arg, -1, mpidbg_myrank(cx), 0);
    }
    return 0;
}

static void seg_bounds(struct mpidbg_seg *s, const struct mpidbg_tinfo *ti)
{
    s->lo = s->hi = (int64_t)s->addr;
    if (!ti->ok || ti->size == 0 || s->count <= 0)
        return;
    int64_t reach = (s->count - 1) * ti->extent;
    s->lo = (int64_t)s->addr + ti->true_lb + (reach < 0 ? reach : 0);
    s->hi = (int64_t)s->addr + ti->true_ub + (reach > 0 ? reach : 0);
}

static struct mpidbg_side *side_add(struct mpidbg_cx *cx, int mode, const char *arg, int nseg)
{
    if (cx->nside >= MPIDBG_MAX_SIDES)
        return NULL;
    struct mpidbg_side *sd = &cx->sides[cx->nside++];
    sd->name = arg;
    sd->mode = mode;
    sd->nseg = 0;
    sd->seg = nseg <= 2 ? sd->inl : malloc(sizeof(struct mpidbg_seg) * nseg);
    if (!sd->seg) {
        cx->nside--;
        return NULL;
    }
    sd->lo = INT64_MAX;
    sd->hi = INT64_MIN;
    return sd;
}

static void side_seg(struct mpidbg_cx *cx, struct mpidbg_side *sd, const void *addr, int64_t count,
                     const struct mpidbg_tinfo *ti)
{
    struct mpidbg_seg *s = &sd->seg[sd->nseg++];
    s->addr = (uint64_t)(uintptr_t)addr;
    s->count = count;
    s->type = ti->handle;
    s->mode = sd->mode;
    s->side = (int32_t)(sd - cx->sides);
    seg_bounds(s, ti);
    if (s->hi > s->lo) {
        if (s->lo < sd->lo)
            sd->lo = s->lo;
        if (s->hi > sd->hi)
            sd->hi = s->hi;
    }
}

void mpidbg_side_free(struct mpidbg_cx *cx)
{
    for (int i = 0; i < cx->nside; i++)
        if (cx->sides[i].seg && cx->sides[i].seg != cx->sides[i].inl)
            free(cx->sides[i].seg);
    cx->nside = 0;
}

/* null_buffer: a NULL (MPI_BOTTOM) buffer with data to move is legal
 * only with a datatype of absolute addresses (MPI-4.1 §5.1.12); a type
 * whose data starts in the first page is not one. */
static void chk_null(struct mpidbg_cx *cx, const void *buf, const char *arg, int index, int64_t count,
                     const struct mpidbg_tinfo *ti)
{
    if (MPIDBG_LIKELY(buf != NULL) || count <= 0 || !ti->ok || ti->size == 0 || ti->true_lb >= 4096)
        return;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, MPIDBG_F_NULL_BUFFER, arg);
    ev.index = index;
    ev.count = count;
    ev.handle = ti->handle;
    ev.val = count * ti->size;
    mpidbg_report(cx, &ev);
}

/* recv-type-overlap: a type whose entries overlap at this count must not
 * be received into (MPI-4.1 §5.1.11). */
static void chk_self(struct mpidbg_cx *cx, const char *arg, int index, const void *buf, int64_t count,
                     const struct mpidbg_tinfo *ti)
{
    if (MPIDBG_LIKELY(ti->builtin) || !ti->ok || ti->overlap_count <= 0 || count < ti->overlap_count)
        return;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, MPIDBG_F_RECV_TYPE_OVERLAP, arg);
    ev.index = index;
    ev.count = count;
    ev.handle = ti->handle;
    ev.val = ti->overlap_count;
    ev.addr = (uint64_t)(uintptr_t)buf;
    mpidbg_report(cx, &ev);
}

/* mpidbg_side adds a buffer of count elements: the segment (its bounds)
 * is built only when something needs it, mpidbg_sides_ready. */
void mpidbg_side(struct mpidbg_cx *cx, int mode, const void *buf, const char *arg, int64_t count,
                 const struct mpidbg_tinfo *ti)
{
    if (count < 0 || !ti->ok)
        return;
    chk_null(cx, buf, arg, -1, count, ti);
    if (mode == MPIDBG_WR)
        chk_self(cx, arg, -1, buf, count, ti);
    if (cx->nside >= MPIDBG_MAX_SIDES)
        return;
    struct mpidbg_side *sd = &cx->sides[cx->nside++];
    sd->name = arg;
    sd->mode = mode;
    sd->nseg = -1;
    sd->seg = sd->inl;
    sd->buf = buf;
    sd->count = count;
    sd->ti = ti;
}

void mpidbg_sides_ready(struct mpidbg_cx *cx)
{
    for (int i = 0; i < cx->nside; i++) {
        struct mpidbg_side *sd = &cx->sides[i];
        if (sd->nseg >= 0)
            continue;
        sd->nseg = 0;
        sd->lo = INT64_MAX;
        sd->hi = INT64_MIN;
        side_seg(cx, sd, sd->buf, sd->count, sd->ti);
    }
}

/* two_segs puts two buffers that share bytes from at on into an event:
 * a as Count x Handle at Addr, b as Count2 x Handle2 at Addr2. */
static void two_segs(struct mpidbg_ev *ev, const struct mpidbg_seg *a, const struct mpidbg_seg *b, uint64_t at)
{
    ev->addr = a->addr;
    ev->count = a->count;
    ev->handle = a->type;
    ev->addr2 = b->addr;
    ev->count2 = b->count;
    ev->handle2 = b->type;
    ev->at = at;
}

struct by_lo {
    int64_t lo;
    int32_t k;
};

static int cmp_by_lo(const void *a, const void *b)
{
    int64_t x = ((const struct by_lo *)a)->lo, y = ((const struct by_lo *)b)->lo;
    return (x > y) - (x < y);
}

/* blocks_overlap reports the first two blocks of a v- or w-collective's
 * receive side that share a byte (MPI-4.1 §6.5: no location written more
 * than once); blk[k] is segment k's block. Only blocks whose bounds meet
 * are compared byte for byte, in the order of their lower bounds, and at
 * most 4 per block and 64 in all beyond the neighbours: blocks of strided
 * types that interleave (the columns of a matrix, each spanning all of
 * it) would otherwise cost a comparison per pair. */
static void blocks_overlap(struct mpidbg_cx *cx, const char *arg, struct mpidbg_side *sd, const int32_t *blk)
{
    int n = sd->nseg;
    if (n < 2)
        return;
    /* the common case, blocks in order and apart, in one pass */
    int64_t end = INT64_MIN;
    int k = 0;
    for (; k < n; k++) {
        const struct mpidbg_seg *s = &sd->seg[k];
        if (s->hi <= s->lo)
            continue;
        if (s->lo < end)
            break;
        end = s->hi;
    }
    if (k == n)
        return;
    struct by_lo ord_inl[16], *ord = n <= 16 ? ord_inl : malloc(sizeof *ord * (size_t)n);
    if (!ord)
        return;
    int m = 0;
    for (k = 0; k < n; k++)
        if (sd->seg[k].hi > sd->seg[k].lo)
            ord[m++] = (struct by_lo){sd->seg[k].lo, k};
    qsort(ord, (size_t)m, sizeof *ord, cmp_by_lo);
    int extra = 64;
    for (int a = 0; a < m; a++) {
        struct mpidbg_seg *x = &sd->seg[ord[a].k];
        for (int b = a + 1, tried = 0; b < m && ord[b].lo < x->hi; b++, tried++) {
            if (tried >= 4 && extra-- <= 0)
                break;
            struct mpidbg_seg *y = &sd->seg[ord[b].k];
            uint64_t at;
            if (mpidbg_seg_overlap(x, y, &at) != 1)
                continue;
            int i = blk[ord[a].k], j = blk[ord[b].k];
            const struct mpidbg_seg *lo = i < j ? x : y, *hi = i < j ? y : x;
            struct mpidbg_ev ev;
            mpidbg_ev_init(&ev, cx, MPIDBG_F_RECV_BLOCKS_OVERLAP, arg);
            ev.val = i < j ? i : j;
            ev.lim = i < j ? j : i;
            two_segs(&ev, lo, hi, at);
            mpidbg_report(cx, &ev);
            goto out;
        }
    }
out:
    if (ord != ord_inl)
        free(ord);
}

/* mpidbg_side_v adds the side of a v- or w-collective: segment i holds
 * counts[i] elements at displs[i] (in extents of the type, or in bytes
 * for the w forms). */
void mpidbg_side_v(struct mpidbg_cx *cx, int mode, const void *buf, const char *arg,
                   const void *counts, size_t celem, const void *displs, size_t delem, int bytes,
                   int64_t n, const struct mpidbg_tinfo *ti, const MPI_Datatype *types)
{
    if (!counts || !displs || n <= 0)
        return;
    struct mpidbg_side *sd = side_add(cx, mode, arg, (int)n);
    if (!sd)
        return;
    /* the block each segment of a receive side is, for blocks_overlap */
    int32_t blk_inl[16], *blk = NULL;
    int64_t nblk = 0;
    if (mode == MPIDBG_WR && n > 1 && mpidbg_enabled(MPIDBG_F_RECV_BLOCKS_OVERLAP)) {
        blk = n <= 16 ? blk_inl : malloc(sizeof *blk * (size_t)n);
        nblk = blk ? n : 0;
    }
    int nulls = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t c = elem_at(counts, celem, i);
        if (c <= 0)
            continue;
        struct mpidbg_tinfo tv;
        const struct mpidbg_tinfo *t = ti;
        if (types) {
            mpidbg_tinfo_get(MPIDBG_H(types[i]), &tv);
            t = &tv;
        }
        if (!t || !t->ok)
            continue;
        int64_t d = elem_at(displs, delem, i);
        int64_t off = bytes ? d : d * t->extent;
        const char *addr = (const char *)buf + off;
        if (!nulls && buf == NULL && t->size > 0 && t->true_lb + off < 4096) {
            struct mpidbg_ev ev;
            mpidbg_ev_init(&ev, cx, MPIDBG_F_NULL_BUFFER, arg);
            ev.index = (int)i;
            ev.count = c;
            ev.handle = t->handle;
            ev.val = c * t->size;
            mpidbg_report(cx, &ev);
            nulls = 1;
        }
        if (mode == MPIDBG_WR)
            chk_self(cx, arg, (int)i, addr, c, t);
        if (mode == MPIDBG_WR && blk && sd->nseg < nblk)
            blk[sd->nseg] = (int32_t)i;
        side_seg(cx, sd, addr, c, t);
    }
    if (blk) {
        blocks_overlap(cx, arg, sd, blk);
        if (blk != blk_inl)
            free(blk);
    }
}

/* mpidbg_chk_overlaps checks, once every side of the call is known, the
 * send side against the receive side (send-recv-overlap: MPI-4.1 §3.10
 * for MPI_Sendrecv, §2.3 for OUT arguments that alias others; in-place
 * collectives use MPI_IN_PLACE) and every side against the operations
 * still pending. */
void mpidbg_chk_overlaps(struct mpidbg_cx *cx)
{
    if (MPIDBG_LIKELY(cx->nside < 2 && __atomic_load_n(&mpidbg_npending, __ATOMIC_RELAXED) == 0))
        return;
    mpidbg_sides_ready(cx);
    if (cx->nside > 1 && mpidbg_enabled(MPIDBG_F_SEND_RECV_OVERLAP)) {
        for (int a = 0; a < cx->nside; a++)
            for (int b = a + 1; b < cx->nside; b++) {
                struct mpidbg_side *x = &cx->sides[a], *y = &cx->sides[b];
                if (x->mode != MPIDBG_WR && y->mode != MPIDBG_WR)
                    continue;
                if (x->hi <= x->lo || y->hi <= y->lo || x->hi <= y->lo || y->hi <= x->lo)
                    continue;
                for (int i = 0; i < x->nseg; i++)
                    for (int j = 0; j < y->nseg; j++) {
                        uint64_t at;
                        if (mpidbg_seg_overlap(&x->seg[i], &y->seg[j], &at) != 1)
                            continue;
                        struct mpidbg_side *s = x->mode == MPIDBG_WR ? y : x, *r = x->mode == MPIDBG_WR ? x : y;
                        struct mpidbg_seg *ss = s == x ? &x->seg[i] : &y->seg[j];
                        struct mpidbg_seg *rs = r == x ? &x->seg[i] : &y->seg[j];
                        struct mpidbg_ev ev;
                        mpidbg_ev_init(&ev, cx, MPIDBG_F_SEND_RECV_OVERLAP, s->name);
                        ev.text = r->name;
                        two_segs(&ev, ss, rs, at);
                        mpidbg_report(cx, &ev);
                        goto pending;
                    }
            }
    }
pending:
    mpidbg_pending_check(cx);
}

/* ---- requests ---- */

/* mpidbg_chk_reqout: the request variable of a new operation holds an
 * operation still active. That loses the request only if the program
 * kept no copy of the handle: a correct program may well have copied it
 * (MPI_Irecv(..., &tmp); reqs[n++] = tmp; in a loop). So the call is
 * noted on the request, and request-overwritten is reported at
 * MPI_Finalize if the request was indeed never completed (leaks.c). */
void mpidbg_chk_reqout(struct mpidbg_cx *cx, const MPI_Request *r, const char *arg)
{
    (void)arg;
    if (!r || *r == MPI_REQUEST_NULL || MPIDBG_IS_BUILTIN_REQ(*r))
        return;
    struct mpidbg_robj *o = mpidbg_req_lookup(*r);
    if (!o || !o->active || !o->live || o->ow_site)
        return;
    mpidbg_wlock();
    o->ow_site = cx->site;
    o->ow_call = cx->call;
    mpidbg_wunlock();
}

/* ---- object destruction ---- */

int mpidbg_chk_freetype(struct mpidbg_cx *cx, const MPI_Datatype *t, const char *arg)
{
    if (!t) {
        report_plain(cx, MPIDBG_F_NULL_ARRAY, 0, arg, -1, 1, 0);
        return 0;
    }
    uint64_t h = MPIDBG_H(*t);
    struct mpidbg_tinfo ti;
    int r = mpidbg_tinfo_get(h, &ti);
    if (r == 2 && mpidbg_adopt_type(h))
        return 1;
    if (r == 1) {
        report_handle(cx, MPIDBG_F_TYPE_NULL, MPIDBG_V_NULL, arg, -1, h, MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        return 0;
    }
    if (r == 2) {
        report_handle(cx, MPIDBG_F_TYPE_UNKNOWN, MPIDBG_V_UNKNOWN, arg, -1, h, MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        return 0;
    }
    if (ti.builtin) {
        report_handle(cx, MPIDBG_F_TYPE_FREE_PREDEFINED, 0, arg, -1, h, MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        return 0;
    }
    if (r == 3) {
        struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, h);
        report_handle(cx, MPIDBG_F_TYPE_DOUBLE_FREE, 0, arg, -1, h, MPIDBG_HK_TYPE, o && o->rec ? o->rec->free_site : 0,
                      MPIDBG_CALL_MPI_Type_free, MPIDBG_REL_FREED);
        return 0;
    }
    return 1;
}

int mpidbg_chk_committype(struct mpidbg_cx *cx, const MPI_Datatype *t, const char *arg)
{
    if (!t) {
        report_plain(cx, MPIDBG_F_NULL_ARRAY, 0, arg, -1, 1, 0);
        return 0;
    }
    uint64_t h = MPIDBG_H(*t);
    struct mpidbg_tinfo ti;
    int r = mpidbg_tinfo_get(h, &ti);
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, h);
    if ((r == 2 && mpidbg_adopt_type(h)) || (o && o->opaque))
        return 1; /* a type the shim did not see made: its state is not known */
    switch (r) {
    case 1:
        report_handle(cx, MPIDBG_F_TYPE_NULL, MPIDBG_V_NULL, arg, -1, h, MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        return 0;
    case 2:
        report_handle(cx, MPIDBG_F_TYPE_UNKNOWN, MPIDBG_V_UNKNOWN, arg, -1, h, MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        return 0;
    case 3:
        report_handle(cx, MPIDBG_F_TYPE_FREED, 0, arg, -1, h, MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        return 0;
    case 0:
        if (ti.builtin)
            report_handle(cx, MPIDBG_F_COMMIT_PREDEFINED, 0, arg, -1, h, MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        else
            report_handle(cx, MPIDBG_F_COMMIT_TWICE, 0, arg, -1, h, MPIDBG_HK_TYPE, 0, -1, MPIDBG_REL_NONE);
        return 0;
    }
    return 1;
}

void mpidbg_chk_freecomm(struct mpidbg_cx *cx, const MPI_Comm *c, const char *arg)
{
    if (!c) {
        report_plain(cx, MPIDBG_F_NULL_ARRAY, 0, arg, -1, 1, 0);
        return;
    }
    mpidbg_chk_comm(cx, *c, arg);
}

void mpidbg_chk_freegroup(struct mpidbg_cx *cx, const MPI_Group *g, const char *arg)
{
    if (!g) {
        report_plain(cx, MPIDBG_F_NULL_ARRAY, 0, arg, -1, 1, 0);
        return;
    }
    mpidbg_chk_group(cx, *g, arg);
}

void mpidbg_chk_freeop(struct mpidbg_cx *cx, const MPI_Op *op, const char *arg)
{
    if (!op) {
        report_plain(cx, MPIDBG_F_NULL_ARRAY, 0, arg, -1, 1, 0);
        return;
    }
    mpidbg_chk_op(cx, *op, arg);
}

void mpidbg_chk_freewin(struct mpidbg_cx *cx, const MPI_Win *w, const char *arg)
{
    if (!w) {
        report_plain(cx, MPIDBG_F_NULL_ARRAY, 0, arg, -1, 1, 0);
        return;
    }
    mpidbg_chk_win(cx, *w, arg);
}

/* mpidbg_sum adds the n entries of a counts array (0 for NULL). */
int64_t mpidbg_sum(const void *counts, size_t elem, int64_t n)
{
    int64_t s = 0;
    for (int64_t i = 0; counts && i < n; i++)
        s += elem_at(counts, elem, i);
    return s;
}
