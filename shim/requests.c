/*
 * Requests: recorded when a nonblocking or persistent call returns one,
 * active (with their buffers pending) until a completion call finishes
 * them. This file holds the records, the minted handles and what
 * completion does to a request; the hand-written wrappers are in
 * requests_complete.c (the completion family) and requests_start.c
 * (MPI_Start, MPI_Startall, MPI_Request_free), with what they share in
 * requests.h.
 *
 * Buffer races (docs/races.md): while a request is active, its
 * buffers are watched by the access tracker (track.h): a receive's
 * without access, a send's write-protected, one range per segment,
 * for the operations the sampling policy picks. MPI_Wait and MPI_Waitall
 * stop watching before the PMPI call (MPI moves the data there, and
 * every library access to a watched page would fault); MPI_Waitany,
 * MPI_Waitsome and the Test family after it, for the requests it
 * completed (the library's faults in between are never reported).
 * Small contiguous send buffers are also copied at the start and
 * compared at completion (send-buffer-changed). The tracker side of this
 * is requests_track.c.
 */
#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "requests.h"

static uint32_t req_serial;
static int64_t rma_active; /* active requests of request-based one-sided calls (mpidbg_req_rma_flushed) */


/* Operations that came back with one of the MPI's shared request handles
 * (shim.h: MPICH's builtin requests, Open MPI's &ompi_request_empty)
 * completed when they started and share that handle value, but each is
 * pending until the program completes it (MPI-4.1 §3.7.2, §3.7.3): a
 * receive into a buffer such a send still reads is an error. So the
 * program gets a handle minted for the operation (shim.h), tracked like
 * any other request, and MPI gets the builtin value back in every call
 * that takes requests (the completion and start wrappers, and the reqin
 * role of the generated ones). Slots are reused last-freed first, so a loop
 * of small sends reuses the same few handles and their records. Under
 * the writer lock. */
static uint32_t *mint_free;
static uint32_t mint_nfree, mint_cap, mint_next;

static MPI_Request mint(MPI_Request r)
{
    uint32_t s;
    if (mint_nfree)
        s = mint_free[--mint_nfree];
    else if (mint_next < MPIDBG_MINT_SLOTS)
        s = mint_next++;
    else
        return r; /* half a million pending: the rest goes untracked */
    return MPIDBG_MINT(s, r);
}

static void unmint(uint64_t h)
{
    if (mint_nfree == mint_cap) {
        uint32_t cap = mint_cap ? 2 * mint_cap : 256;
        uint32_t *v = realloc(mint_free, sizeof *v * cap);
        if (!v)
            return; /* the slot is lost, not reused */
        mint_free = v;
        mint_cap = cap;
    }
    mint_free[mint_nfree++] = MPIDBG_MINT_SLOT(h);
}

struct mpidbg_robj *mpidbg_req_lookup(MPI_Request r)
{
    return mpidbg_hmap_get(&mpidbg_requests, MPIDBG_H(r));
}

static int seg_reserve(struct mpidbg_robj *o, int n)
{
    if (!o->seg) {
        o->seg = o->inl;
        o->segcap = 2;
    }
    if (n <= o->segcap)
        return 1;
    struct mpidbg_seg *s = malloc(sizeof *s * n);
    if (!s)
        return 0;
    if (o->seg != o->inl)
        free(o->seg);
    o->seg = s;
    o->segcap = n;
    return 1;
}

/* mpidbg_next_post numbers postings and starts, requests' and blocking
 * receives', in the rank's order (xr_race.c: of two receives that match
 * a message, MPI gives it to the one posted first). */
uint64_t mpidbg_next_post(void)
{
    static uint64_t n;
    /* only MPI calls number postings, so none is lost without threads */
    return mpidbg_count(&n) + 1;
}

/* mpidbg_req_new records the request a call returned; kind 0 takes the
 * kind from the call's buffer sides. */
void mpidbg_req_new(struct mpidbg_cx *cx, MPI_Request *rp, int kind)
{
    MPI_Request r = *rp;
    if (r == MPI_REQUEST_NULL)
        return;
    int minting = MPIDBG_IS_BUILTIN_REQ(r);
    if (minting && (cx->persistent || !MPIDBG_MINTABLE(r)))
        return;
    mpidbg_sides_ready(cx);
    int nseg = 0, rd = 0, wr = 0;
    struct mpidbg_seg *wfirst = NULL, *rfirst = NULL;
    for (int i = 0; i < cx->nside; i++) {
        struct mpidbg_side *sd = &cx->sides[i];
        nseg += sd->nseg;
        if (sd->mode == MPIDBG_WR) {
            wr = 1;
            if (!wfirst && sd->nseg)
                wfirst = &sd->seg[0];
        } else {
            rd = 1;
            if (!rfirst && sd->nseg)
                rfirst = &sd->seg[0];
        }
    }
    if (!kind)
        kind = wr && rd ? MPIDBG_REQ_COLL : wr ? MPIDBG_REQ_RECV : rd ? MPIDBG_REQ_SEND : MPIDBG_REQ_OTHER;

    mpidbg_wlock();
    if (minting) {
        r = mint(r);
        if (r == *rp) {
            mpidbg_wunlock();
            return;
        }
        *rp = r;
    }
    uint64_t h = MPIDBG_H(r);
    struct mpidbg_robj *o = mpidbg_hmap_get(&mpidbg_requests, h);
    int stale = 0;
    if (!o) {
        struct mpidbg_request *rec = mpidbg_table_add(&mpidbg_registry.requests, NULL);
        o = calloc(1, sizeof *o);
        if (!rec || !o) {
            mpidbg_wunlock();
            free(o);
            return;
        }
        o->handle = h;
        o->rec = rec;
        mpidbg_table_publish(&mpidbg_registry.requests);
        mpidbg_hmap_put(&mpidbg_requests, h, o);
    } else {
        mpidbg_req_changed(o);
    }
    if (o->active) { /* a new record has none */
        mpidbg_pending_remove(o); /* a completion the shim did not see */
        mpidbg_pending_flush();
        if (o->rec->kind == MPIDBG_REQ_RMA)
            __atomic_sub_fetch(&rma_active, 1, __ATOMIC_RELAXED);
        stale = 1;
    }
    struct mpidbg_request *rec = o->rec;
    rec->handle = h;
    rec->site = cx->site;
    struct mpidbg_seg *b = wfirst ? wfirst : rfirst;
    rec->buf = b ? b->addr : 0;
    rec->datatype = b ? b->type : 0;
    rec->count = b ? b->count : 0;
    int two = kind == MPIDBG_REQ_COLL && rfirst;
    rec->buf2 = two ? rfirst->addr : 0;
    rec->datatype2 = two ? rfirst->type : 0;
    rec->count2 = two ? rfirst->count : 0;
    rec->comm = cx->wo ? cx->wo->handle : cx->comm;
    rec->peer = cx->peer;
    rec->tag = cx->tag;
    rec->call = cx->call;
    o->xr = cx->co && mpidbg_xr_has(cx->co) ? cx->co->xr : MPI_COMM_NULL;
    /* a stale record's window is ended by the completion that took a
     * copy of it (mpidbg_xr_snap), not here */
    o->xr_rwin = cx->xr_rwin;
    if (o->xr_kept)
        mpidbg_xr_kept_free(o->xr_kept); /* a stale record's: it was never completed */
    o->xr_kept = cx->xr_kept;
    cx->xr_kept = NULL;
    o->xr_xs.on = 0;
    o->xr_rdesc = NULL;
    o->xr_post = mpidbg_next_post();
    rec->serial = o->serial = ++req_serial;
    rec->kind = (uint32_t)kind;
    o->call = cx->call;
    o->persistent = cx->persistent;
    o->active = !cx->persistent;
    o->live = 1;
    o->newcomm = NULL;
    o->ow_site = 0;
    o->start_site = 0;
    o->nseg = 0;
    if (seg_reserve(o, nseg)) {
        for (int i = 0; i < cx->nside; i++)
            for (int j = 0; j < cx->sides[i].nseg; j++)
                if (!mpidbg_seg_untouched(cx, cx->sides[i].seg[j].mode))
                    o->seg[o->nseg++] = cx->sides[i].seg[j];
    }
    __atomic_store_n(&rec->state, MPIDBG_LIVE | (o->active ? MPIDBG_ACTIVE : 0) | (o->persistent ? MPIDBG_PERSISTENT : 0),
                     __ATOMIC_RELEASE);
    if (o->active)
        mpidbg_xr_posted(o);
    if (o->active && !(mpidbg_disabled & (1u << MPIDBG_CAT_OVERLAP)))
        mpidbg_pending_add(o);
    if (o->active && kind == MPIDBG_REQ_RMA)
        __atomic_add_fetch(&rma_active, 1, __ATOMIC_RELAXED);
    mpidbg_wunlock();
    /* outside the lock: the first receive of a type asks the Go model
     * for its description; the program has not seen the handle yet */
    if (!MPIDBG_IS_BUILTIN_TYPE(o->rec->datatype))
        mpidbg_xr_recv_posted(o);
    if (stale)
        mpidbg_req_track_end(NULL, o);
    if (o->active)
        mpidbg_req_track_start(cx, o, minting);
}

void mpidbg_req_deferred_comm(struct mpidbg_cx *cx, MPI_Request r, MPI_Comm *newcomm)
{
    if (MPIDBG_IS_BUILTIN_REQ(r)) {
        mpidbg_comm_new(cx, *newcomm, 0); /* done already */
        return;
    }
    struct mpidbg_robj *o = mpidbg_req_lookup(r);
    if (o)
        o->newcomm = newcomm;
}

/* mpidbg_req_started: a persistent request started (its buffers are
 * handed to the tracker by requests_start.c). */
void mpidbg_req_started(struct mpidbg_robj *o)
{
    mpidbg_req_changed(o);
    o->xr_post = mpidbg_next_post();
    mpidbg_xr_started(o);
    mpidbg_wlock();
    o->active = 1;
    o->rec->state |= MPIDBG_ACTIVE;
    if (!(mpidbg_disabled & (1u << MPIDBG_CAT_OVERLAP)))
        mpidbg_pending_add(o);
    mpidbg_wunlock();
    mpidbg_xr_posted(o); /* active by now: a completion's look at the list sees it pending */
}
/* mpidbg_req_buffers_done: MPI said the operation of r is complete
 * without completing the request (MPI_Request_get_status, §3.7.6): its
 * buffers are the program's again (§2.4: "a test or get status call
 * which returns flag = true" completes it), so they stop being watched
 * and pending now; the request stays active until a completion call,
 * which then has no buffers left to end. */
void mpidbg_req_buffers_done(struct mpidbg_cx *cx, const struct mpidbg_reqref *r)
{
    struct mpidbg_robj *o = r->o;
    if (!o || o->serial != r->serial || !o->active)
        return;
    /* another thread's completion call (or get_status) may end the same
     * ranges meanwhile: whoever claims them first ends them
     * (requests_track.c) */
    mpidbg_req_track_end(cx, o);
    mpidbg_wlock();
    mpidbg_pending_remove(o);
    mpidbg_pending_flush();
    mpidbg_wunlock();
}

/* mpidbg_req_completed finishes n requests; freed: MPI_Request_free
 * (whose operation may still be reading its buffer: no comparison). */
void mpidbg_req_completed(struct mpidbg_cx *cx, const struct mpidbg_reqref *rs, int n, int freed)
{
    MPI_Comm *deferred[8];
    uint64_t dsite[8];
    int32_t dcall[8];
    int nd = 0;
    if (n > 1)
        mpidbg_req_track_release_all(rs, n); /* their pages in one pass */
    for (int i = 0; i < n; i++) {
        struct mpidbg_robj *o = rs[i].o;
        if (o)
            mpidbg_req_changed(o);
        if (o && o->serial == rs[i].serial && o->active && (o->tr_n || o->snap_n))
            mpidbg_req_track_end(freed ? NULL : cx, o);
    }
    int32_t rstack[8], *rwins = n > 8 ? malloc(sizeof *rwins * (size_t)n) : rstack;
    int nrw = 0, rcap = rwins ? (n > 8 ? n : 8) : 0;
    mpidbg_wlock();
    for (int i = 0; i < n; i++) {
        struct mpidbg_robj *o = rs[i].o;
        if (!o || o->serial != rs[i].serial)
            continue;
        /* a receive whose shadow was never pulled (cancelled, freed,
         * failed): its window ends without a message */
        if (o->xr_rwin) {
            if (nrw < rcap)
                rwins[nrw++] = o->xr_rwin;
            o->xr_rwin = 0;
        }
        if (o->xr_kept) {
            mpidbg_xr_kept_free(o->xr_kept);
            o->xr_kept = NULL;
        }
        if (o->active) {
            mpidbg_pending_remove(o);
            if (o->rec->kind == MPIDBG_REQ_RMA)
                __atomic_sub_fetch(&rma_active, 1, __ATOMIC_RELAXED);
            o->active = 0;
            o->rec->state &= ~MPIDBG_ACTIVE;
        }
        if (!o->persistent || freed) {
            o->live = 0;
            o->rec->state = (o->rec->state & ~MPIDBG_LIVE) | MPIDBG_FREED;
            if (MPIDBG_IS_MINTED_REQ(o->handle))
                unmint(o->handle);
        }
        if (o->newcomm && nd < 8) {
            deferred[nd] = o->newcomm;
            dsite[nd] = o->rec->site;
            dcall[nd] = o->call;
            nd++;
            o->newcomm = NULL;
        }
    }
    mpidbg_pending_flush();
    mpidbg_wunlock();
    for (int i = 0; i < nrw; i++)
        mpidbg_xrw_end(rwins[i], -1, 0);
    if (rwins != rstack)
        free(rwins);
    for (int i = 0; i < nd; i++) {
        struct mpidbg_cx cx;
        memset(&cx, 0, sizeof cx);
        cx.site = dsite[i];
        cx.call = dcall[i];
        mpidbg_comm_new(&cx, *deferred[i], 0);
    }
}

/* mpidbg_req_rma_flushed: a flush or an unlock of window win completes
 * every outstanding operation to target (-1: every target) at the origin,
 * request-based ones too (MPI-4.1 §12.5.4: MPI_Win_flush "completes all
 * outstanding RMA operations initiated by the calling process to the
 * target rank"; §12.3.5: the request's completion is one way to know an
 * operation completed at the origin, not the only one). From here on
 * their buffers are the program's again: they stop being watched and
 * leave the pending lists; the requests stay active until a test or wait
 * takes them, as MPI keeps them. */
struct flushed {
    uint64_t win;
    int target, n, cap;
    struct mpidbg_reqref *v;
};

static void flushed_one(void *val, void *arg)
{
    struct mpidbg_robj *o = val;
    struct flushed *f = arg;
    if (!o || !o->live || !o->active || !o->rec || o->rec->kind != MPIDBG_REQ_RMA || o->rec->comm != f->win ||
        (f->target >= 0 && o->rec->peer != f->target))
        return;
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 16;
        struct mpidbg_reqref *v = realloc(f->v, sizeof *v * (size_t)cap);
        if (!v)
            return;
        f->v = v;
        f->cap = cap;
    }
    f->v[f->n++] = (struct mpidbg_reqref){MPI_REQUEST_NULL, o->serial, o};
}

void mpidbg_req_rma_flushed(MPI_Win win, int target)
{
    if (!__atomic_load_n(&rma_active, __ATOMIC_RELAXED))
        return; /* no walk over every request at each flush of a program that has none */
    struct flushed f = {MPIDBG_H(win), target, 0, 0, NULL};
    mpidbg_wlock();
    mpidbg_hmap_each(&mpidbg_requests, flushed_one, &f);
    for (int i = 0; i < f.n; i++)
        mpidbg_pending_remove(f.v[i].o);
    if (f.n)
        mpidbg_pending_flush();
    mpidbg_wunlock();
    /* Their watched ranges end here; under MPI_THREAD_MULTIPLE another
     * thread may be in MPI_Wait on one of them right now, ending the same
     * ones: whoever claims them first ends them (requests_track.c). */
    mpidbg_req_track_release_all(f.v, f.n); /* the tracker's own lock, not the writer's */
    free(f.v);
}

/* mpidbg_req_check checks a request a completion call takes: NULL or one
 * the program holds. */
int mpidbg_req_check(struct mpidbg_cx *cx, MPI_Request r, const char *arg, int index)
{
    if (r == MPI_REQUEST_NULL || MPIDBG_IS_BUILTIN_REQ(r))
        return 1;
    struct mpidbg_robj *o = mpidbg_req_lookup(r);
    if (MPIDBG_LIKELY(o && o->live))
        return 1;
    if (!o && mpidbg_adopt_request(MPIDBG_H(r)))
        return 1; /* made by a call the shim does not wrap */
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, MPIDBG_F_REQUEST_UNKNOWN, arg);
    ev.hkind = MPIDBG_HK_REQUEST;
    ev.index = index;
    ev.handle = MPIDBG_H(r);
    ev.variant = o ? MPIDBG_V_INACTIVE : MPIDBG_V_UNKNOWN;
    if (o) {
        ev.related_site = o->rec->site;
        ev.related_call = o->call;
        ev.related_kind = MPIDBG_REL_STARTED;
    }
    mpidbg_report(cx, &ev);
    return 0;
}


#ifdef OPEN_MPI
/* Fortran handles of minted requests. Open MPI's Fortran bindings turn
 * the request a C call returned into an INTEGER with
 * PMPI_Request_c2f, which reads the request object's table index: a
 * minted handle is no object, so each gets an index of its own, above
 * any Open MPI gives out, and MPI_Request_f2c turns it back (the
 * bindings' PMPI imports reach these, shim/fortran.c). The bindings read
 * an index from the object directly only for requests a completion call
 * returned, which are MPI_REQUEST_NULL or persistent, never minted. */
#define MINT_FORTRAN_BASE 0x40000000

MPI_Fint MPI_Request_c2f(MPI_Request r)
{
    if (MPIDBG_IS_MINTED_REQ(r))
        return (MPI_Fint)(MINT_FORTRAN_BASE + MPIDBG_MINT_SLOT(MPIDBG_H(r)));
    return PMPI_Request_c2f(r);
}

MPI_Request MPI_Request_f2c(MPI_Fint f)
{
    if (f >= MINT_FORTRAN_BASE && f - MINT_FORTRAN_BASE < (MPI_Fint)MPIDBG_MINT_SLOTS)
        return MPIDBG_MINT((uint32_t)(f - MINT_FORTRAN_BASE), MPI_REQUEST_NULL);
    return PMPI_Request_f2c(f);
}
#endif
