/*
 * Collectives across ranks: before the program's collective, the ranks
 * of the communicator agree on the shadow on what they are calling.
 *
 * Pre contract (mpidbg_xc_pre): the collective gets its number on the
 * communicator; a blocking one writes the blocked-call record; every
 * rank contributes a fixed vector (which collective, blocking or not,
 * root, operation, digests of the signatures that must be equal, the
 * logical clock) to an allreduce that yields each entry's minimum and
 * maximum. Blocking collectives wait for it, so they become
 * synchronizing: MPI-4.1 §6.14 says a correct program must not depend on
 * whether they are. Nonblocking and persistent ones (§6.12, §6.13) start
 * it as MPI_Iallreduce and finish it when their request is completed
 * (mpidbg_xc_req_done), so the shim never blocks where MPI would not. The
 * blocking form uses MPI_Iallreduce too, with a wait: a blocking and a
 * nonblocking collective never match each other, but the shim's
 * exchanges must, to tell the program that it mixed them.
 * When minimum and maximum differ somewhere, every rank gathers every
 * rank's entries (a rare, slow path) and reports, at its own call, which
 * ranks called what.
 * The v and w forms then compare each block with its partner's (count
 * and signature digest, sent with the same pattern as the collective's
 * data) and the ranks gather who found a mismatch; the neighbourhood
 * forms compare each block with the one sent along the same edge of the
 * topology (xr_coll_nbr.c).
 *
 * The digests are hashes of the whole sequence of basic types
 * (datatype.Sig.HashRepeat): equal signatures always have equal digests,
 * so differing digests prove a mismatch; a collision could only hide one.
 * MPI_PACKED, which matches any signature of the same size (§5.2), turns
 * the signature comparison off for that collective.
 *
 * When every member is on this host, the same entries go through the
 * node segment instead of the allreduce (shm_blocking, shm_start,
 * xr_coll_node.c): each rank reads every member's and makes of them what
 * the allreduce and the exchanges above would have told it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

enum { V_KIND, V_ROOT, V_OP, V_SIGA, V_SIGB, V_COUNTS, V_PACKED, V_CLOCK, NV };

/* set at this thread's last contribution: no receive window was open */
static __thread int contrib_clean __attribute__((tls_model("initial-exec")));

/* A v/w collective's block to or from one peer: what this rank sends it
 * and what this rank expects from it (count, signature digest and
 * datatype's mpidbg_xc_type_code, for the report; count -1: none). */
struct blk {
    int64_t sc, sh, ec, eh;
    uint32_t st, et;
};
static const struct blk no_blk = {-1, 0, -1, 0, 0, 0}; /* nothing sent, nothing expected */
enum { BLK_WORDS = sizeof(struct blk) / sizeof(int64_t) }; /* exchanged as MPI_INT64_T */
_Static_assert(sizeof(struct blk) % sizeof(int64_t) == 0, "a block is whole int64s");

struct rec {
    int64_t v[NV];
    int64_t scount, rcount;
    uint32_t stype, rtype; /* mpidbg_xc_type_code */
    int32_t world;
    int16_t call, has_root; /* has_root: this rank is a gather's or scatter's root */
};

_Static_assert(sizeof(struct rec) == 96 && sizeof(struct blk) == 40, "the node segment's descriptor: 60 members in a slot");
_Static_assert(MPIDBG_NCALLS <= INT16_MAX, "a call id in struct rec");

/* A handle's distance from TYPE_BASE is the same in every process of
 * the job for a predefined datatype: a constant under MPICH; under Open
 * MPI, where handles are pointers into libmpi, which each process maps
 * at an address of its own, the distance between two of its objects. */
#ifdef OPEN_MPI
#define TYPE_BASE MPIDBG_H(MPI_DATATYPE_NULL)
#else
#define TYPE_BASE UINT64_C(0x4c000000) /* MPICH's builtin datatypes (mpi_mpich.h) */
#endif

static uint32_t type_distance(MPI_Datatype t)
{
    int64_t d = (int64_t)(MPIDBG_H(t) - TYPE_BASE);
    if (d < -(INT64_C(1) << 29) || d >= (INT64_C(1) << 29))
        return 0;
    return ((uint32_t)d << 2) | 2;
}

/* mpidbg_xc_type_code names a datatype so that another process can name it too,
 * in the report; in 32 bits, so that the node segment's descriptor stays
 * 96 bytes. Low bits 3: a predefined datatype the registry knows, by its
 * basic type (datatype.Basic, also for MPI_Type_create_f90_*) above
 * them; 2: the handle's distance from TYPE_BASE above them; 1: a
 * datatype the program made; 0: none, or a distance too far for a
 * predefined datatype. */
uint32_t mpidbg_xc_type_code(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL)
        return 0;
#ifndef OPEN_MPI
    /* a bit test under MPICH, where most collectives' types are predefined:
     * no lookup on the way into every collective */
    if (MPIDBG_IS_BUILTIN_TYPE(t))
        return type_distance(t);
#endif
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, MPIDBG_H(t));
    if (o && !o->predef && !o->opaque)
        return 1;
    if (o && o->basic > 0)
        return ((uint32_t)o->basic << 2) | 3;
    return type_distance(t);
}

/* type_local makes another process's mpidbg_xc_type_code into the form the report
 * takes (struct mpidbg_coll_group): a distance becomes this process's
 * handle. */
static uint64_t type_local(uint32_t code)
{
    if ((code & 3) != 2)
        return code;
    int64_t d = ((int64_t)(int32_t)code - 2) / 4; /* exact: the distance times 4, plus 2 */
    return ((TYPE_BASE + (uint64_t)d) << 2) | 2;
}

/* rec_of is this rank's entries as the others see them, with the counts
 * and datatypes MPI reads on this rank only (-1 and none for the others):
 * the receive arguments of a gather are significant only at its root,
 * the send arguments of a scatter only at its root (MPI-4.1 §6.5, §6.6),
 * and MPI_IN_PLACE leaves the other side's unread (§6.5-§6.8), where a
 * program may pass anything. */
static struct rec rec_of(const int64_t *mine, const struct mpidbg_xc *xc, int call, int me)
{
    int root = xc->root == me, sin = xc->sbuf == MPI_IN_PLACE, rin = xc->rbuf == MPI_IN_PLACE;
    int nosend = 0, norecv = 0, has_root = 0;
    switch (xc->kind) {
    case MPIDBG_CALL_MPI_Gather:
    case MPIDBG_CALL_MPI_Gatherv:
        norecv = !root;
        nosend = root && sin;
        has_root = root;
        break;
    case MPIDBG_CALL_MPI_Scatter:
    case MPIDBG_CALL_MPI_Scatterv:
        nosend = !root;
        norecv = root && rin;
        has_root = root;
        break;
    case MPIDBG_CALL_MPI_Allgather:
    case MPIDBG_CALL_MPI_Allgatherv:
    case MPIDBG_CALL_MPI_Alltoall:
    case MPIDBG_CALL_MPI_Alltoallv:
    case MPIDBG_CALL_MPI_Alltoallw:
        nosend = sin;
        break;
    }
    uint32_t st = nosend ? 0 : mpidbg_xc_type_code(xc->stype);
    uint32_t rt = norecv ? 0 : xc->rtype == xc->stype && !nosend ? st : mpidbg_xc_type_code(xc->rtype);
    struct rec r = {{0}, nosend ? -1 : xc->scount, norecv ? -1 : xc->rcount, st, rt, mpidbg_world_rank, (int16_t)call, (int16_t)has_root};
    memcpy(r.v, mine, sizeof r.v);
    return r;
}

struct xc_state {
    MPI_Request r;
    int64_t v[2 * NV];   /* in: this rank's entries and their negations; out: minima and negated maxima */
    int64_t mine[NV];
    struct mpidbg_xc xc;  /* pointers into the program's arrays are not kept */
    uint64_t site;
    int32_t call, pad;
    struct mpidbg_cobj *co;
    /* nonblocking and persistent v/w forms: the blocks, exchanged at the
     * call with MPI_Ialltoall (rb), compared at completion */
    int32_t done;         /* the agreement is finished */
    int32_t paired;       /* it found the same collective and root everywhere */
    int32_t same, pad2;   /* every member whose entries were read called the same collective (a member whose
                           * descriptor was overwritten has passed it): a neighbourhood form's exchange completes */
    MPI_Request rb;       /* MPI_REQUEST_NULL: no exchange */
    struct blk *out, *in; /* this rank's blocks, and those the peers sent it */
    /* the agreement through the node segment (co->xcn): the members'
     * descriptors as they are read, and what became of each */
    int32_t shm, nblk;    /* nblk: this rank wrote its blocks */
    struct rec *all;
    int8_t *st;
    struct mpidbg_nbr *nb; /* a neighbourhood collective's blocks, exchanged at the call */
};

static int is_packed(MPI_Datatype t)
{
    return t == MPI_PACKED;
}

static int64_t sig(MPI_Datatype t, int64_t n)
{
    if (t == MPI_DATATYPE_NULL || n < 0)
        return 0;
    return (int64_t)(mpidbg_type_sighash(t, n) & 0x1fffffffffffffffull);
}

static int64_t hash_counts(const void *a, size_t elem, int64_t n)
{
    uint64_t h = MPIDBG_FNV64_BASIS;
    for (int64_t i = 0; i < n; i++)
        h = mpidbg_fnv64(h, (uint64_t)mpidbg_xc_count_at(a, elem, i));
    return (int64_t)(h & 0x1fffffffffffffffull);
}

static int is_v(int kind)
{
    return kind == MPIDBG_CALL_MPI_Gatherv || kind == MPIDBG_CALL_MPI_Scatterv || kind == MPIDBG_CALL_MPI_Allgatherv ||
           kind == MPIDBG_CALL_MPI_Alltoallv || kind == MPIDBG_CALL_MPI_Alltoallw;
}

static int rooted(int kind)
{
    return kind == MPIDBG_CALL_MPI_Bcast || kind == MPIDBG_CALL_MPI_Reduce || kind == MPIDBG_CALL_MPI_Gather ||
           kind == MPIDBG_CALL_MPI_Gatherv || kind == MPIDBG_CALL_MPI_Scatter || kind == MPIDBG_CALL_MPI_Scatterv;
}

/* vector fills this rank's entries. */
static void vector(const struct mpidbg_xc *xc, struct mpidbg_cobj *co, int64_t *v)
{
    memset(v, 0, sizeof(int64_t) * NV);
    v[V_KIND] = (int64_t)xc->kind * 4 + xc->mode;
    v[V_ROOT] = rooted(xc->kind) ? xc->root : -1;
    /* 0 no op, 1 a user-defined one, 1 + the index of a predefined one */
    v[V_OP] = xc->op ? 1 + MPIDBG_BUILTIN_OP_INDEX(xc->op) : 0;
    uint64_t clock = mpidbg_xr_clock;
    v[V_CLOCK] = (int64_t)clock;
    mpidbg_tc_publish(clock);
    /* under MPI_THREAD_MULTIPLE a collective is one thread's: it can make
     * this rank's clock sure again only when no other thread's receive
     * could still pull a mixed-up shadow after the contribution */
    if (mpidbg_mt) {
        pthread_mutex_lock(&mpidbg_xr_mu);
        contrib_clean = mpidbg_xrw_open_locked() == 0;
        pthread_mutex_unlock(&mpidbg_xr_mu);
    }
    int me = co->rank, root = xc->root == me;
    int sin = xc->sbuf == MPI_IN_PLACE, rin = xc->rbuf == MPI_IN_PLACE;
    int64_t a = 0, b = 0;
    v[V_PACKED] = is_packed(xc->stype) || is_packed(xc->rtype);
    switch (xc->kind) {
    case MPIDBG_CALL_MPI_Bcast:
    case MPIDBG_CALL_MPI_Reduce:
    case MPIDBG_CALL_MPI_Allreduce:
    case MPIDBG_CALL_MPI_Scan:
    case MPIDBG_CALL_MPI_Exscan:
        a = b = sig(xc->stype != MPI_DATATYPE_NULL ? xc->stype : xc->rtype, xc->scount >= 0 ? xc->scount : xc->rcount);
        break;
    case MPIDBG_CALL_MPI_Reduce_scatter_block:
        a = b = sig(xc->rtype, xc->rcount);
        break;
    case MPIDBG_CALL_MPI_Reduce_scatter:
        a = b = sig(xc->rtype, 1);
        v[V_COUNTS] = hash_counts(xc->rcounts, xc->rcelem, co->size);
        break;
    case MPIDBG_CALL_MPI_Gather:
        if (root) {
            a = sig(xc->rtype, xc->rcount);
            b = sin ? a : sig(xc->stype, xc->scount);
        } else {
            a = b = sig(xc->stype, xc->scount);
        }
        break;
    case MPIDBG_CALL_MPI_Scatter:
        if (root) {
            a = sig(xc->stype, xc->scount);
            b = rin ? a : sig(xc->rtype, xc->rcount);
        } else {
            a = b = sig(xc->rtype, xc->rcount);
        }
        break;
    case MPIDBG_CALL_MPI_Allgather:
    case MPIDBG_CALL_MPI_Alltoall:
        b = sig(xc->rtype, xc->rcount);
        a = sin ? b : sig(xc->stype, xc->scount);
        break;
    }
    if (co->inter)
        a = b = v[V_COUNTS] = 0; /* the two groups' sides differ by design */
    v[V_SIGA] = a;
    v[V_SIGB] = b;
}

static const char *op_name(int64_t op)
{
    const char *name = op > 1 ? mpidbg_builtin_op_name((int)(op - 1)) : NULL;
    return name ? name : op == 1 ? "a user-defined operation" : "an unknown operation";
}

static void report(struct mpidbg_cobj *co, int fid, uint64_t site, int call, const struct mpidbg_coll_group *groups,
                   int ngroups)
{
    struct mpidbg_cx cx;
    memset(&cx, 0, sizeof cx);
    cx.call = call;
    cx.site = site;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, &cx, fid, NULL);
    ev.handle = co->handle;
    ev.groups = groups;
    ev.ngroups = ngroups;
    mpidbg_report(&cx, &ev);
}

/* judge reports what differs between the members' entries (all, in
 * communicator rank order). */
static void judge(struct mpidbg_cobj *co, const struct rec *all, uint64_t site, int call)
{
    int n = co->size;
    int32_t *grp = calloc((size_t)n, sizeof *grp);
    struct mpidbg_coll_group *groups = calloc((size_t)n, sizeof *groups);
    char *done = calloc((size_t)n, 1);
    if (!grp || !groups || !done)
        goto out;
    int fid = MPIDBG_F_COLLECTIVE_TYPE_MISMATCH, field = V_SIGA;
    for (int i = 1; i < n; i++) {
        if (all[i].v[V_KIND] != all[0].v[V_KIND]) {
            fid = MPIDBG_F_COLLECTIVE_MISMATCH, field = V_KIND;
            break;
        }
    }
    if (field != V_KIND)
        for (int i = 1; i < n; i++)
            if (all[i].v[V_ROOT] != all[0].v[V_ROOT])
                fid = MPIDBG_F_COLLECTIVE_ROOT_MISMATCH, field = V_ROOT;
    if (field == V_SIGA)
        for (int i = 1; i < n; i++)
            if (all[i].v[V_OP] != all[0].v[V_OP])
                fid = MPIDBG_F_COLLECTIVE_OP_MISMATCH, field = V_OP;
    if (field == V_SIGA) {
        int packed = 0;
        for (int i = 0; i < n; i++)
            packed |= all[i].v[V_PACKED] != 0;
        int differ = 0;
        for (int i = 0; i < n; i++)
            differ |= all[i].v[V_SIGA] != all[0].v[V_SIGA] || all[i].v[V_SIGB] != all[0].v[V_SIGA] ||
                      all[i].v[V_COUNTS] != all[0].v[V_COUNTS];
        if (packed || !differ)
            goto out;
    }
    /* groups of ranks with equal entries; grp holds every group's ranks
     * one after the other */
    int ngroups = 0, used = 0;
    for (int i = 0; i < n; i++) {
        if (done[i])
            continue;
        struct mpidbg_coll_group *g = &groups[ngroups++];
        g->ranks = grp + used;
        for (int j = i; j < n; j++)
            if (!done[j] && all[j].v[field] == all[i].v[field] &&
                (field != V_SIGA || (all[j].v[V_SIGB] == all[i].v[V_SIGB] && all[j].v[V_COUNTS] == all[i].v[V_COUNTS] &&
                                     all[j].scount == all[i].scount && all[j].rcount == all[i].rcount &&
                                     all[j].stype == all[i].stype && all[j].rtype == all[i].rtype &&
                                     all[j].has_root == all[i].has_root))) {
                done[j] = 1;
                grp[used++] = all[j].world;
                g->nranks++;
            }
        g->call = all[i].call;
        g->mode = (int32_t)(all[i].v[V_KIND] % 4); /* v[V_KIND] is kind * 4 + mode */
        g->root = all[i].v[V_ROOT];
        g->op = op_name(all[i].v[V_OP]);
        g->scount = all[i].scount;
        g->rcount = all[i].rcount;
        g->has_root = all[i].has_root;
        g->stype = type_local(all[i].stype);
        g->rtype = type_local(all[i].rtype);
    }
    report(co, fid, site, call, groups, ngroups);
out:
    free(grp);
    free(groups);
    free(done);
}

/* disagree gathers every rank's entries and reports what differs: the
 * groups of ranks with equal entries. */
static void disagree(struct mpidbg_cobj *co, const int64_t *mine, const struct mpidbg_xc *xc, uint64_t site, int call)
{
    int n = co->size;
    struct rec me = rec_of(mine, xc, call, co->rank);
    struct rec *all = calloc((size_t)n, sizeof *all);
    if (all && PMPI_Allgather(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE, co->xr) == MPI_SUCCESS)
        judge(co, all, site, call);
    free(all);
}

/* agree looks at the allreduce's result: v holds minima, then the
 * negated maxima. It returns whether every rank called the same
 * collective with the same root, so that the blocks of a v/w form can be
 * paired. */
static int agree(struct mpidbg_cobj *co, const int64_t *res, const int64_t *mine, const struct mpidbg_xc *xc, uint64_t site,
                 int call, const struct rec *all, int complete)
{
    int64_t maxclock = -res[NV + V_CLOCK];
    if (mpidbg_mt)
        pthread_mutex_lock(&mpidbg_xr_mu);
    if ((uint64_t)maxclock > mpidbg_xr_clock)
        mpidbg_xr_clock = (uint64_t)maxclock;
    mpidbg_xr_clock++;
    mpidbg_tc_import((uint64_t)maxclock);
    /* every rank's clock is now above every clock before the collective:
     * a clock a mixed-up pairing left too low is right again */
    if (co->npeers == mpidbg_world_size() && (!mpidbg_mt || contrib_clean) && complete)
        mpidbg_xr_unsure = 0;
    else if (!complete)
        mpidbg_xr_unsure = 1; /* a member's clock is unknown: this one may stay below it */
    contrib_clean = 0;
    if (mpidbg_mt)
        pthread_mutex_unlock(&mpidbg_xr_mu);
    int same = 1;
    for (int i = 0; i < NV; i++) {
        if (i == V_CLOCK || i == V_PACKED)
            continue;
        if (res[i] != -res[NV + i])
            same = 0;
    }
    if (same && res[V_SIGA] != res[V_SIGB] && -res[NV + V_PACKED] == 0)
        same = 0;
    if (!complete)
        return 0; /* the entries of some members are gone: no finding from the others' alone */
    if (!same && mpidbg_enabled(MPIDBG_F_COLLECTIVE_MISMATCH)) {
        if (all)
            judge(co, all, site, call);
        else
            disagree(co, mine, xc, site, call);
    }
    return res[V_KIND] == -res[NV + V_KIND] && res[V_ROOT] == -res[NV + V_ROOT];
}

static int pairwise(struct mpidbg_cobj *co, const struct mpidbg_xc *xc, struct mpidbg_pairing *pr);
static int blocks_of(struct mpidbg_cobj *co, const struct mpidbg_xc *xc, struct blk *out);
static int pair_blocks(struct mpidbg_cobj *co, int kind, int root, int me, const struct blk *out, const struct blk *in,
                       struct mpidbg_pairing *pr);

/* ---- on one host: the agreement through the node segment ----
 * Every member writes its descriptor (struct rec and, for the v/w forms,
 * its blocks) into its own area and reads the others' (xr_coll_node.c).
 * A blocking collective waits until it has read every member's, so that
 * every rank knows all the entries the allreduce would have told it and
 * reports at its own call just as that path does; waiting where every
 * member waits anyway costs little, and a member that never calls the
 * collective leaves the others waiting in the agreement, as before.
 * Nonblocking and persistent ones write at the call and read at
 * completion. */

void mpidbg_xc_comm_new(struct mpidbg_cobj *co)
{
    mpidbg_xcn_new(co, sizeof(struct rec), sizeof(struct blk));
}

/* shm_pass reads the descriptors of collective seq not read yet into
 * all[] (st[]: their MPIDBG_XCN_ state): with full, each member's n
 * blocks into b[i * n]; otherwise the block member i wrote for this rank
 * into b[i]. It returns how many are not there yet. */
static int shm_pass(struct mpidbg_cobj *co, uint64_t seq, struct rec *all, int8_t *st, struct blk *b, int full)
{
    int n = co->size, me = co->rank, left = 0;
    for (int i = 0; i < n; i++) {
        if (i == me || st[i] != MPIDBG_XCN_NOTYET)
            continue;
        int r;
        if (!co->xcn)
            r = MPIDBG_XCN_LOST; /* freed while a request was pending */
        else if (!b)
            r = mpidbg_xcn_get(co, seq, i, &all[i], sizeof all[i], NULL, 0, 0);
        else if (full)
            r = mpidbg_xcn_get(co, seq, i, &all[i], sizeof all[i], &b[(size_t)i * n], 0, sizeof *b * (size_t)n);
        else
            r = mpidbg_xcn_get(co, seq, i, &all[i], sizeof all[i], &b[i], sizeof *b * (size_t)me, sizeof *b);
        st[i] = (int8_t)r;
        if (r == MPIDBG_XCN_NOTYET)
            left++;
        else if (r == MPIDBG_XCN_LATER || r == MPIDBG_XCN_LOST)
            __atomic_add_fetch(&mpidbg_xcn_lost, 1, __ATOMIC_RELAXED);
    }
    return left;
}

/* shm_result makes of the descriptors what the allreduce yields: the
 * minima and negated maxima; 0 when some are gone (a later
 * collective's descriptor still gives a clock above the lost one's). */
static int shm_result(struct mpidbg_cobj *co, const struct rec *all, const int8_t *st, int64_t *res)
{
    int n = co->size, complete = 1;
    for (int k = 0; k < NV; k++) {
        res[k] = INT64_MAX;
        res[NV + k] = INT64_MAX;
    }
    for (int i = 0; i < n; i++) {
        if (i != co->rank && st[i] != MPIDBG_XCN_FOUND && st[i] != MPIDBG_XCN_FOUND_BLK) {
            complete = 0;
            if (st[i] != MPIDBG_XCN_LATER)
                continue;
        }
        for (int k = 0; k < NV; k++) {
            if (all[i].v[k] < res[k])
                res[k] = all[i].v[k];
            if (-all[i].v[k] < res[NV + k])
                res[NV + k] = -all[i].v[k];
        }
    }
    return complete;
}

/* same_kind says whether every member whose descriptor was read called
 * the collective kind (with its mode) */
static int same_kind(const struct mpidbg_cobj *co, const struct rec *all, const int8_t *st, int64_t kind)
{
    for (int i = 0; i < co->size; i++)
        if ((st[i] == MPIDBG_XCN_FOUND || st[i] == MPIDBG_XCN_FOUND_BLK) && all[i].v[V_KIND] != kind)
            return 0;
    return 1;
}

/* shm_blocking returns whether every member whose descriptor it read
 * called the same collective (a member whose descriptor is gone has
 * passed it, so was there). */
static int shm_blocking(struct mpidbg_cx *cx, struct mpidbg_xc *xc, struct mpidbg_cobj *co, const int64_t *mine)
{
    int n = co->size, me = co->rank, same = 0;
    int v = is_v(xc->kind) && mpidbg_enabled(MPIDBG_F_COLLECTIVE_TYPE_MISMATCH);
    struct rec stack_all[8];
    int8_t stack_st[8];
    struct rec *all = n <= 8 ? stack_all : calloc((size_t)n, sizeof *all);
    int8_t *st = n <= 8 ? stack_st : calloc((size_t)n, 1);
    struct blk *b = v ? calloc((size_t)n * (size_t)n, sizeof *b) : NULL;
    if (!all || !st || (v && !b))
        goto out;
    memset(st, 0, (size_t)n);
    all[me] = rec_of(mine, xc, cx->call, me);
    int nblk = v && blocks_of(co, xc, &b[(size_t)me * n]);
    mpidbg_xcn_put(co, xc->seq, &all[me], sizeof all[me], nblk ? &b[(size_t)me * n] : NULL, nblk ? sizeof *b * (size_t)n : 0);
    unsigned spins = 0;
    while (shm_pass(co, xc->seq, all, st, b, 1))
        mpidbg_xcn_relax(co, &spins);
    int64_t res[2 * NV];
    int complete = shm_result(co, all, st, res);
    int paired = agree(co, res, mine, xc, cx->site, cx->call, all, complete);
    same = same_kind(co, all, st, mine[V_KIND]);
    if (!v || !paired)
        goto out;
    /* every member's pairing, as each would find it (pairwise's) */
    struct blk *in = calloc((size_t)n, sizeof *in);
    int32_t *bad = calloc((size_t)n, sizeof *bad);
    struct mpidbg_pairing pr = {0}, mypr = {0};
    int k = 0, mybad = 0;
    for (int i = 0; in && bad && i < n; i++) {
        if (i != me && st[i] != MPIDBG_XCN_FOUND_BLK)
            continue;
        if (i == me && !nblk)
            continue;
        for (int j = 0; j < n; j++) {
            int wrote = j == me ? nblk : st[j] == MPIDBG_XCN_FOUND_BLK;
            in[j] = wrote ? b[(size_t)j * n + i] : no_blk;
        }
        if (pair_blocks(co, xc->kind, xc->root, i, &b[(size_t)i * n], in, &pr)) {
            bad[k++] = all[i].world;
            if (i == me)
                mybad = 1, mypr = pr;
        }
    }
    if (k)
        mpidbg_xc_report_pairs(co, cx->site, cx->call, xc->kind, bad, k, mybad, &mypr);
    free(in);
    free(bad);
out:
    if (all != stack_all)
        free(all);
    if (st != stack_st)
        free(st);
    free(b);
    return same;
}

/* shm_start writes a nonblocking or persistent collective's descriptor
 * into s, which its completion finishes (finish). */
static void shm_start(struct xc_state *s, struct mpidbg_cobj *co, const int64_t *mine)
{
    int n = co->size, me = co->rank;
    const struct mpidbg_xc *xc = &s->xc;
    s->shm = 1;
    s->all = calloc((size_t)n, sizeof *s->all);
    s->st = calloc((size_t)n, 1);
    if (is_v(xc->kind) && mpidbg_enabled(MPIDBG_F_COLLECTIVE_TYPE_MISMATCH)) {
        s->out = calloc((size_t)n, sizeof *s->out);
        s->in = calloc((size_t)n, sizeof *s->in);
        s->nblk = s->out && s->in && blocks_of(co, xc, s->out);
    }
    struct rec me_rec = rec_of(mine, xc, s->call, me);
    if (s->all)
        s->all[me] = me_rec;
    mpidbg_xcn_put(co, xc->seq, &me_rec, sizeof me_rec, s->nblk ? s->out : NULL, s->nblk ? sizeof *s->out * (size_t)n : 0);
}

/* nbr_finish: finish's part for a neighbourhood collective's blocks,
 * once the agreement is in */
static int nbr_finish(struct xc_state *s, int wait)
{
    if (!s->same)
        return -1; /* a member called another collective and never joins the exchange: left in flight */
    if (!mpidbg_nbr_step(s->nb, wait))
        return 0;
    mpidbg_nbr_judge(s->co, s->nb, s->site, s->call, s->xc.kind);
    return 1;
}

/* nbr_blocking: a blocking neighbourhood collective's blocks, exchanged
 * when every member called it (same) */
static void nbr_blocking(struct mpidbg_cx *cx, struct mpidbg_xc *xc, struct mpidbg_cobj *co, int same)
{
    struct mpidbg_nbr *nb = same ? mpidbg_nbr_new(co, xc) : NULL;
    if (nb && mpidbg_nbr_start(co, nb) && mpidbg_nbr_step(nb, 1))
        mpidbg_nbr_judge(co, nb, cx->site, cx->call, xc->kind);
    mpidbg_nbr_free(nb);
}

/* nbr_begin: a nonblocking or persistent one's, exchanged at the call */
static void nbr_begin(struct xc_state *s, struct mpidbg_cobj *co)
{
    s->nb = mpidbg_nbr_new(co, &s->xc);
    if (s->nb && !mpidbg_nbr_start(co, s->nb)) {
        mpidbg_nbr_free(s->nb);
        s->nb = NULL;
    }
}

/* shm_finish: finish's part for the node segment */
static int shm_finish(struct xc_state *s, int wait)
{
    struct mpidbg_cobj *co = s->co;
    if (!s->done) {
        if (!s->all || !s->st) {
            s->done = 1;
            return s->nb ? -1 : 1; /* MPI may still write into a neighbourhood exchange */
        }
        unsigned spins = 0;
        while (shm_pass(co, s->xc.seq, s->all, s->st, s->nblk ? s->in : NULL, 0)) {
            if (!wait)
                return 0;
            mpidbg_xcn_relax(co, &spins);
        }
        s->done = 1;
        int64_t res[2 * NV];
        int complete = shm_result(co, s->all, s->st, res);
        s->paired = agree(co, res, s->mine, &s->xc, s->site, s->call, s->all, complete);
        s->same = same_kind(co, s->all, s->st, s->mine[V_KIND]);
    }
    if (s->nb)
        return nbr_finish(s, wait);
    if (!s->nblk || !s->paired)
        return 1;
    for (int j = 0; j < co->size; j++)
        if (j != co->rank && s->st[j] != MPIDBG_XCN_FOUND_BLK)
            s->in[j] = no_blk;
    s->in[co->rank] = s->out[co->rank];
    struct mpidbg_pairing pr = {0};
    if (pair_blocks(co, s->xc.kind, s->xc.root, co->rank, s->out, s->in, &pr)) {
        int32_t me = mpidbg_world_rank;
        mpidbg_xc_report_pairs(co, s->site, s->call, s->xc.kind, &me, 1, 1, &pr);
    }
    return 1;
}

static void xs_free(struct xc_state *s)
{
    mpidbg_nbr_free(s->nb);
    free(s->out);
    free(s->in);
    free(s->all);
    free(s->st);
    free(s);
}

/* new_state is a nonblocking or persistent collective's agreement,
 * carried by its request until completion */
static struct xc_state *new_state(const struct mpidbg_cx *cx, const struct mpidbg_xc *xc, struct mpidbg_cobj *co,
                                  const int64_t *mine)
{
    struct xc_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->xc = *xc;
    s->site = cx->site;
    s->call = cx->call;
    s->co = co;
    s->rb = MPI_REQUEST_NULL;
    memcpy(s->mine, mine, sizeof s->mine);
    return s;
}

void mpidbg_xc_pre(struct mpidbg_cx *cx, struct mpidbg_xc *xc)
{
    if (!mpidbg_xr_on)
        return;
    struct mpidbg_cobj *co = xc->co = mpidbg_xr_comm(cx, cx->comm ? (MPI_Comm)cx->comm : MPI_COMM_NULL);
    if (!co)
        return;
    xc->seq = ++co->coll_seq;
    if (xc->mode == MPIDBG_CALLMODE_BLOCKING) {
        mpidbg_blocked_begin(cx, MPIDBG_WAIT_AND);
        mpidbg_blocked_wait(MPIDBG_WAIT_COLL, -1, 0, co, xc->seq, cx->call, 0);
        mpidbg_blocked_publish();
        xc->blocked = 1;
    }
    if (co->inter)
        return; /* intercommunicators: only the blocked-call record of a blocking one (MPI_IN_PLACE, which
                 * the agreement's allreduce uses, is not defined on them: Open MPI fails the call) */
    int64_t mine[NV], buf[2 * NV], res[2 * NV];
    vector(xc, co, mine);
    if (co->xcn) {
        if (xc->mode == MPIDBG_CALLMODE_BLOCKING) {
            int same = shm_blocking(cx, xc, co, mine);
            if (mpidbg_nbr_kind(xc->kind))
                nbr_blocking(cx, xc, co, same);
            return;
        }
        struct xc_state *s = new_state(cx, xc, co, mine);
        if (!s)
            return;
        shm_start(s, co, mine);
        nbr_begin(s, co);
        cx->xr_state = s; /* mpidbg_xc_post attaches it to the request */
        return;
    }
    for (int i = 0; i < NV; i++) {
        buf[i] = mine[i];
        buf[NV + i] = -mine[i];
    }
    if (xc->mode != MPIDBG_CALLMODE_BLOCKING) {
        struct xc_state *s = new_state(cx, xc, co, mine);
        if (!s)
            return;
        memcpy(s->v, buf, sizeof buf);
        if (PMPI_Iallreduce(MPI_IN_PLACE, s->v, 2 * NV, MPI_INT64_T, MPI_MIN, co->xr, &s->r) != MPI_SUCCESS) {
            free(s);
            return;
        }
        /* The v/w forms' blocks go now, in the order of the program's
         * collectives, which every rank follows: exchanged at completion
         * they would interleave differently with later agreements on
         * different ranks. MPI_Ialltoall for every v/w form, so that two
         * ranks calling different ones still exchange alike. */
        if (is_v(xc->kind) && !co->inter && mpidbg_enabled(MPIDBG_F_COLLECTIVE_TYPE_MISMATCH)) {
            s->out = calloc((size_t)co->size, sizeof *s->out);
            s->in = calloc((size_t)co->size, sizeof *s->in);
            if (s->out && s->in && blocks_of(co, xc, s->out) &&
                PMPI_Ialltoall(s->out, BLK_WORDS, MPI_INT64_T, s->in, BLK_WORDS, MPI_INT64_T, co->xr, &s->rb) != MPI_SUCCESS)
                s->rb = MPI_REQUEST_NULL;
            if (s->rb == MPI_REQUEST_NULL) {
                free(s->out);
                free(s->in);
                s->out = s->in = NULL;
            }
        }
        nbr_begin(s, co);
        cx->xr_state = s; /* mpidbg_xc_post attaches it to the request */
        return;
    }
    MPI_Request r;
    if (PMPI_Iallreduce(buf, res, 2 * NV, MPI_INT64_T, MPI_MIN, co->xr, &r) != MPI_SUCCESS ||
        PMPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return;
    agree(co, res, mine, xc, cx->site, cx->call, NULL, 1);
    if (mpidbg_nbr_kind(xc->kind))
        nbr_blocking(cx, xc, co, res[V_KIND] == -res[NV + V_KIND]);
    if (is_v(xc->kind) && res[V_KIND] == -res[NV + V_KIND] && res[V_ROOT] == -res[NV + V_ROOT] &&
        mpidbg_enabled(MPIDBG_F_COLLECTIVE_TYPE_MISMATCH)) {
        struct mpidbg_pairing pr = {0};
        int bad = pairwise(co, xc, &pr);
        int32_t *flags = calloc((size_t)co->size, sizeof *flags);
        int32_t mineflag = bad;
        if (flags && PMPI_Allgather(&mineflag, 1, MPI_INT32_T, flags, 1, MPI_INT32_T, co->xr) == MPI_SUCCESS) {
            int k = 0;
            for (int i = 0; i < co->size; i++)
                if (flags[i])
                    flags[k++] = mpidbg_xr_world_of(co, i);
            if (k)
                mpidbg_xc_report_pairs(co, cx->site, cx->call, xc->kind, flags, k, bad, &pr);
        }
        free(flags);
    }
}

static int finish(struct xc_state *s, int wait);

int mpidbg_xc_post(struct mpidbg_cx *cx, struct mpidbg_xc *xc, int rc, MPI_Request *req)
{
    if (xc->blocked) {
        mpidbg_blocked_end();
        xc->blocked = 0;
    }
    struct xc_state *s = cx->xr_state;
    if (!s)
        return rc;
    cx->xr_state = NULL;
    struct mpidbg_robj *o = rc == MPI_SUCCESS && req ? mpidbg_req_lookup(*req) : NULL;
    if (o && !o->xc) {
        o->xc = s;
        o->coll_seq = xc->seq;
        return rc;
    }
    /* no request to wait with: finish now */
    if (finish(s, 1) != 1)
        return rc; /* left in flight: MPI writes into s */
    xs_free(s);
    return rc;
}

/* step waits for (or tests) r; 1 when it is complete. */
static int step(MPI_Request *r, int wait)
{
    int done = 0;
    if (wait)
        return PMPI_Wait(r, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    if (PMPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return 0;
    return done;
}

/* finish takes s as far as it can: the agreement, then the blocks; 1
 * when s is done with and may be freed. A v/w or neighbourhood form
 * whose ranks called different collectives (or roots) leaves its
 * exchange unfinished (a rank that called another collective never
 * joins it): s stays allocated, since MPI may still write into it. */
static int finish(struct xc_state *s, int wait)
{
    if (s->shm)
        return shm_finish(s, wait);
    if (!s->done) {
        if (!step(&s->r, wait))
            return 0;
        s->done = 1;
        s->paired = agree(s->co, s->v, s->mine, &s->xc, s->site, s->call, NULL, 1);
        s->same = s->v[V_KIND] == -s->v[NV + V_KIND];
    }
    if (s->nb)
        return nbr_finish(s, wait);
    if (s->rb == MPI_REQUEST_NULL)
        return 1;
    if (!s->paired)
        return -1;
    if (!step(&s->rb, wait))
        return 0;
    s->rb = MPI_REQUEST_NULL;
    struct mpidbg_pairing pr = {0};
    if (pair_blocks(s->co, s->xc.kind, s->xc.root, s->co->rank, s->out, s->in, &pr)) {
        int32_t me = mpidbg_world_rank;
        mpidbg_xc_report_pairs(s->co, s->site, s->call, s->xc.kind, &me, 1, 1, &pr);
    }
    return 1;
}

void mpidbg_xc_req_done(struct mpidbg_robj *o, int wait)
{
    struct xc_state *s = o ? o->xc : NULL;
    if (!s)
        return;
    int f = finish(s, wait);
    if (f <= 0) /* the collective completed before its agreement: the thread knows what the process knows */
        mpidbg_tc_import(mpidbg_xr_clock);
    if (!f)
        return;
    o->xc = NULL;
    if (f < 0)
        return; /* left in flight: MPI writes into s */
    xs_free(s);
}

/* ---- the v and w forms: each block against its partner ---- */
/* a block as its partner sees it: count, digest, and the datatype's
 * mpidbg_xc_type_code for the report */
struct pair {
    int64_t count, hash, type;
};
enum { PAIR_WORDS = sizeof(struct pair) / sizeof(int64_t) }; /* exchanged as MPI_INT64_T */

int64_t mpidbg_xc_comparable(int64_t count, int64_t hash)
{
    return hash == 0 && count > 0 ? -1 : count;
}

static struct pair block(MPI_Datatype t, int64_t count)
{
    int64_t h = sig(t, count);
    return (struct pair){mpidbg_xc_comparable(count, h), h, mpidbg_xc_type_code(t)};
}

/* unpaired: both blocks can be compared and their signatures differ */
static int unpaired(struct pair mine, struct pair theirs)
{
    return mine.count >= 0 && theirs.count >= 0 && mine.hash != theirs.hash;
}

static int pairwise(struct mpidbg_cobj *co, const struct mpidbg_xc *xc, struct mpidbg_pairing *pr)
{
    int n = co->size, me = co->rank, bad = 0;
    if (co->inter || is_packed(xc->stype) || is_packed(xc->rtype))
        return 0;
    struct pair *p = calloc((size_t)n, sizeof *p), *q = calloc((size_t)n, sizeof *q);
    if (!p || !q)
        goto out;
    int sin = xc->sbuf == MPI_IN_PLACE, rin = xc->rbuf == MPI_IN_PLACE;
    switch (xc->kind) {
    case MPIDBG_CALL_MPI_Gatherv: {
        int root = xc->root == me;
        if (root)
            for (int i = 0; i < n; i++)
                p[i] = block(xc->rtype, mpidbg_xc_count_at(xc->rcounts, xc->rcelem, i));
        struct pair e;
        if (PMPI_Scatter(p, PAIR_WORDS, MPI_INT64_T, &e, PAIR_WORDS, MPI_INT64_T, xc->root, co->xr) != MPI_SUCCESS)
            goto out;
        if (!(root && sin) && unpaired(block(xc->stype, xc->scount), e)) {
            bad = 1;
            *pr = (struct mpidbg_pairing){xc->scount, e.count, me, -1, mpidbg_xc_type_code(xc->stype), (uint32_t)e.type};
        }
        break;
    }
    case MPIDBG_CALL_MPI_Scatterv: {
        int root = xc->root == me;
        if (root)
            for (int i = 0; i < n; i++)
                p[i] = block(xc->stype, mpidbg_xc_count_at(xc->scounts, xc->scelem, i));
        struct pair e;
        if (PMPI_Scatter(p, PAIR_WORDS, MPI_INT64_T, &e, PAIR_WORDS, MPI_INT64_T, xc->root, co->xr) != MPI_SUCCESS)
            goto out;
        if (!(root && rin) && unpaired(block(xc->rtype, xc->rcount), e)) {
            bad = 1;
            *pr = (struct mpidbg_pairing){e.count, xc->rcount, me, -1, (uint32_t)e.type, mpidbg_xc_type_code(xc->rtype)};
        }
        break;
    }
    case MPIDBG_CALL_MPI_Allgatherv: {
        int64_t c = sin ? mpidbg_xc_count_at(xc->rcounts, xc->rcelem, me) : xc->scount;
        struct pair d = block(sin ? xc->rtype : xc->stype, c);
        if (PMPI_Allgather(&d, PAIR_WORDS, MPI_INT64_T, q, PAIR_WORDS, MPI_INT64_T, co->xr) != MPI_SUCCESS)
            goto out;
        for (int i = 0; i < n && !bad; i++) {
            int64_t rc = mpidbg_xc_count_at(xc->rcounts, xc->rcelem, i);
            if (unpaired(block(xc->rtype, rc), q[i])) {
                bad = 1;
                *pr = (struct mpidbg_pairing){q[i].count, rc, i, mpidbg_xr_world_of(co, i), (uint32_t)q[i].type,
                                              mpidbg_xc_type_code(xc->rtype)};
            }
        }
        break;
    }
    case MPIDBG_CALL_MPI_Alltoallv:
    case MPIDBG_CALL_MPI_Alltoallw:
        for (int j = 0; j < n; j++) {
            const void *cs = sin ? xc->rcounts : xc->scounts;
            size_t ce = sin ? xc->rcelem : xc->scelem;
            MPI_Datatype t = xc->kind == MPIDBG_CALL_MPI_Alltoallw ? (sin ? xc->rtypes : xc->stypes)[j] : sin ? xc->rtype : xc->stype;
            p[j] = block(t, mpidbg_xc_count_at(cs, ce, j));
        }
        if (PMPI_Alltoall(p, PAIR_WORDS, MPI_INT64_T, q, PAIR_WORDS, MPI_INT64_T, co->xr) != MPI_SUCCESS)
            goto out;
        for (int i = 0; i < n && !bad; i++) {
            MPI_Datatype t = xc->kind == MPIDBG_CALL_MPI_Alltoallw ? xc->rtypes[i] : xc->rtype;
            int64_t rc = mpidbg_xc_count_at(xc->rcounts, xc->rcelem, i);
            if (unpaired(block(t, rc), q[i])) {
                bad = 1;
                *pr = (struct mpidbg_pairing){q[i].count, rc, i, mpidbg_xr_world_of(co, i), (uint32_t)q[i].type,
                                              mpidbg_xc_type_code(t)};
            }
        }
        break;
    }
out:
    free(p);
    free(q);
    return bad;
}

/* mpidbg_xc_report_pairs reports that the blocks of a v/w or
 * neighbourhood collective do not pair up, found by ranks (world ranks);
 * bad: this rank is one of them, and pr says where. */
void mpidbg_xc_report_pairs(struct mpidbg_cobj *co, uint64_t site, int call, int kind, int32_t *ranks, int nranks, int bad,
                            const struct mpidbg_pairing *pr)
{
    struct mpidbg_cx rcx;
    memset(&rcx, 0, sizeof rcx);
    rcx.call = call;
    rcx.site = site;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, &rcx, MPIDBG_F_COLLECTIVE_TYPE_MISMATCH, NULL);
    ev.variant = MPIDBG_V_PAIRS;
    ev.related_call = kind; /* the blocking form: MPI_Gatherv for MPI_Igatherv */
    ev.handle = co->handle;
    ev.ranks = ranks;
    ev.nranks = nranks;
    if (bad) {
        ev.flags = MPIDBG_FLAG_FOUND_HERE;
        ev.val = pr->sends;
        ev.lim = pr->recvs;
        ev.count = pr->index;
        ev.peer = pr->peer;
        ev.stype = type_local(pr->stype);
        ev.rtype = type_local(pr->rtype);
    }
    mpidbg_report(&rcx, &ev);
}

/* ---- the nonblocking and persistent v and w forms ----
 * Each rank writes, for every peer, what it sends that peer and what it
 * expects from it, at the call (the arrays need not outlive it); one
 * MPI_Ialltoall gives each rank its peers' view, compared when the
 * request completes and the agreement says the ranks called the same
 * collective with the same root. The comparisons are the blocking
 * forms' (pairwise): the sender's for MPI_Igatherv, the receiver's for
 * the others. Only the ranks that find a mismatch report it: gathering
 * who did would take another exchange. */

/* blocks_of fills out (size entries); 0 when there is nothing to pair
 * (MPI_PACKED matches any signature of its size). */
static int blocks_of(struct mpidbg_cobj *co, const struct mpidbg_xc *xc, struct blk *out)
{
    int n = co->size, me = co->rank;
    if (is_packed(xc->stype) || is_packed(xc->rtype))
        return 0;
    for (int j = 0; j < n; j++)
        out[j] = no_blk;
    int sin = xc->sbuf == MPI_IN_PLACE, rin = xc->rbuf == MPI_IN_PLACE;
    int root = xc->root;
    switch (xc->kind) {
    case MPIDBG_CALL_MPI_Gatherv:
        if (root < 0 || root >= n)
            return 0;
        if (!(me == root && sin))
            out[root].sc = xc->scount, out[root].sh = sig(xc->stype, xc->scount), out[root].st = mpidbg_xc_type_code(xc->stype);
        if (me == root) {
            uint32_t et = mpidbg_xc_type_code(xc->rtype);
            for (int i = 0; i < n; i++) {
                int64_t c = mpidbg_xc_count_at(xc->rcounts, xc->rcelem, i);
                out[i].ec = c, out[i].eh = sig(xc->rtype, c), out[i].et = et;
            }
        }
        break;
    case MPIDBG_CALL_MPI_Scatterv:
        if (root < 0 || root >= n)
            return 0;
        if (me == root) {
            uint32_t st = mpidbg_xc_type_code(xc->stype);
            for (int j = 0; j < n; j++) {
                int64_t c = mpidbg_xc_count_at(xc->scounts, xc->scelem, j);
                out[j].sc = c, out[j].sh = sig(xc->stype, c), out[j].st = st;
            }
        }
        if (!(me == root && rin))
            out[root].ec = xc->rcount, out[root].eh = sig(xc->rtype, xc->rcount), out[root].et = mpidbg_xc_type_code(xc->rtype);
        break;
    case MPIDBG_CALL_MPI_Allgatherv: {
        int64_t c = sin ? mpidbg_xc_count_at(xc->rcounts, xc->rcelem, me) : xc->scount;
        int64_t h = sin ? sig(xc->rtype, c) : sig(xc->stype, c);
        uint32_t st = mpidbg_xc_type_code(sin ? xc->rtype : xc->stype), et = mpidbg_xc_type_code(xc->rtype);
        for (int j = 0; j < n; j++) {
            int64_t rc = mpidbg_xc_count_at(xc->rcounts, xc->rcelem, j);
            out[j] = (struct blk){c, h, rc, sig(xc->rtype, rc), st, et};
        }
        break;
    }
    case MPIDBG_CALL_MPI_Alltoallv:
    case MPIDBG_CALL_MPI_Alltoallw:
        for (int j = 0; j < n; j++) {
            int w = xc->kind == MPIDBG_CALL_MPI_Alltoallw;
            const void *cs = sin ? xc->rcounts : xc->scounts;
            size_t ce = sin ? xc->rcelem : xc->scelem;
            MPI_Datatype st = w ? (sin ? xc->rtypes : xc->stypes)[j] : sin ? xc->rtype : xc->stype;
            MPI_Datatype rt = w ? xc->rtypes[j] : xc->rtype;
            int64_t c = mpidbg_xc_count_at(cs, ce, j), rc = mpidbg_xc_count_at(xc->rcounts, xc->rcelem, j);
            out[j] = (struct blk){c, sig(st, c), rc, sig(rt, rc), mpidbg_xc_type_code(st), mpidbg_xc_type_code(rt)};
        }
        break;
    default:
        return 0;
    }
    for (int j = 0; j < n; j++) {
        out[j].sc = mpidbg_xc_comparable(out[j].sc, out[j].sh);
        out[j].ec = mpidbg_xc_comparable(out[j].ec, out[j].eh);
    }
    return 1;
}

/* pair_blocks compares this rank's blocks (out) with what its peers sent
 * it (in): 1 and pr at the first that does not pair. */
static int pair_blocks(struct mpidbg_cobj *co, int kind, int root, int me, const struct blk *out, const struct blk *in,
                       struct mpidbg_pairing *pr)
{
    int n = co->size;
    if (kind == MPIDBG_CALL_MPI_Gatherv) {
        /* the sender: what it sends against what the root expects of it */
        if (root < 0 || root >= n || out[root].sc < 0 || in[root].ec < 0 || out[root].sh == in[root].eh)
            return 0;
        *pr = (struct mpidbg_pairing){out[root].sc, in[root].ec, me, -1, out[root].st, in[root].et};
        return 1;
    }
    for (int i = 0; i < n; i++) {
        if (out[i].ec < 0 || in[i].sc < 0 || out[i].eh == in[i].sh)
            continue;
        if (kind == MPIDBG_CALL_MPI_Scatterv)
            *pr = (struct mpidbg_pairing){in[i].sc, out[i].ec, me, -1, in[i].st, out[i].et};
        else
            *pr = (struct mpidbg_pairing){in[i].sc, out[i].ec, i, mpidbg_xr_world_of(co, i), in[i].st, out[i].et};
        return 1;
    }
    return 0;
}
