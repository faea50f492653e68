/*
 * Requests: recorded when a nonblocking or persistent call returns one,
 * active (with their buffers pending) until a completion call finishes
 * them, and the hand-written completion and start wrappers.
 *
 * Completion family contract (MPI-4.1 §3.7.3-§3.7.5, §3.9):
 *   pre:  the request array is not NULL when count > 0; every request is
 *         MPI_REQUEST_NULL or a request the program holds (request-unknown
 *         otherwise: never made, or completed or freed already); the
 *         handles are copied, as MPI overwrites them.
 *   post: (only when MPI returns MPI_SUCCESS) each completed request
 *         stops being active and its buffers stop being pending; a
 *         nonblocking request is gone, a persistent one stays, inactive;
 *         MPI_Comm_idup's communicator is recorded.
 * Start contract (§3.9): the request is a persistent request of the
 * program's and not active (request-active-start); its buffers are
 * checked against the pending ones; post: it is active and they are
 * pending.
 *
 * Buffer races (issue 5, docs/races.md): while a request is active, its
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

#include "shim.h"

static uint32_t req_serial;


/* Operations that came back with one of the MPI's shared request handles
 * (shim.h: MPICH's builtin requests, Open MPI's &ompi_request_empty)
 * completed when they started and share that handle value, but each is
 * pending until the program completes it (MPI-4.1 §3.7.2, §3.7.3): a
 * receive into a buffer such a send still reads is an error. So the
 * program gets a handle minted for the operation (shim.h), tracked like
 * any other request, and MPI gets the builtin value back in every call
 * that takes requests (the completion wrappers below, and the reqin role
 * of the generated ones). Slots are reused last-freed first, so a loop
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
    } else if (o->active) {
        mpidbg_pending_remove(o); /* a completion the shim did not see */
        mpidbg_pending_flush();
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
    rec->serial = o->serial = ++req_serial;
    rec->kind = (uint32_t)kind;
    o->call = cx->call;
    o->persistent = cx->persistent;
    o->active = !cx->persistent;
    o->live = 1;
    o->newcomm = NULL;
    o->ow_site = 0;
    o->nseg = 0;
    if (seg_reserve(o, nseg)) {
        for (int i = 0; i < cx->nside; i++)
            for (int j = 0; j < cx->sides[i].nseg; j++)
                if (!mpidbg_seg_untouched(cx, cx->sides[i].seg[j].mode))
                    o->seg[o->nseg++] = cx->sides[i].seg[j];
    }
    __atomic_store_n(&rec->state, MPIDBG_LIVE | (o->active ? MPIDBG_ACTIVE : 0) | (o->persistent ? MPIDBG_PERSISTENT : 0),
                     __ATOMIC_RELEASE);
    if (o->active && !(mpidbg_disabled & (1u << MPIDBG_CAT_OVERLAP)))
        mpidbg_pending_add(o);
    mpidbg_wunlock();
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

void mpidbg_req_started(struct mpidbg_robj *o, struct mpidbg_cx *cx)
{
    mpidbg_xr_started(o);
    mpidbg_wlock();
    o->active = 1;
    o->rec->state |= MPIDBG_ACTIVE;
    if (!(mpidbg_disabled & (1u << MPIDBG_CAT_OVERLAP)))
        mpidbg_pending_add(o);
    mpidbg_wunlock();
    mpidbg_req_track_start(cx, o, 0);
}

/* completed finishes n requests; freed: MPI_Request_free (whose
 * operation may still be reading its buffer: no comparison). */
static void completed(struct mpidbg_cx *cx, const struct mpidbg_reqref *rs, int n, int freed)
{
    MPI_Comm *deferred[8];
    uint64_t dsite[8];
    int32_t dcall[8];
    int nd = 0;
    if (n > 1)
        mpidbg_req_track_release_all(rs, n); /* their pages in one pass */
    for (int i = 0; i < n; i++) {
        struct mpidbg_robj *o = rs[i].o;
        if (o && o->serial == rs[i].serial && o->active && (o->tr_n || o->snap_n))
            mpidbg_req_track_end(freed ? NULL : cx, o);
    }
    mpidbg_wlock();
    for (int i = 0; i < n; i++) {
        struct mpidbg_robj *o = rs[i].o;
        if (!o || o->serial != rs[i].serial)
            continue;
        if (o->active) {
            mpidbg_pending_remove(o);
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
    for (int i = 0; i < nd; i++) {
        struct mpidbg_cx cx;
        memset(&cx, 0, sizeof cx);
        cx.site = dsite[i];
        cx.call = dcall[i];
        mpidbg_comm_new(&cx, *deferred[i], 0);
    }
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

/* ref checks one request and keeps what completion will need. */
static void ref(struct mpidbg_cx *cx, MPI_Request h, const char *arg, int index, struct mpidbg_reqref *out)
{
    out->h = h;
    out->o = NULL;
    out->serial = 0;
    if (h == MPI_REQUEST_NULL || MPIDBG_IS_BUILTIN_REQ(h))
        return;
    struct mpidbg_robj *o = mpidbg_req_lookup(h);
    if (MPIDBG_LIKELY(o && o->live)) {
        out->o = o;
        out->serial = o->serial;
        return;
    }
    mpidbg_req_check(cx, h, arg, index);
}

/* ---- the completion wrappers ---- */

#define STACK_REQS 64

static void drop_reqs(struct mpidbg_reqref *c, struct mpidbg_reqref *stack);

/* refused ends a completion call a check refused (MPIDBG_REFUSING). */
static int refused(struct mpidbg_cx *cx, struct mpidbg_reqref *c, struct mpidbg_reqref *stack)
{
    drop_reqs(c, stack);
    return mpidbg_refused(cx);
}

/* copy_reqs checks the requests of a completion call and keeps them. */
static struct mpidbg_reqref *copy_reqs(struct mpidbg_cx *cx, int count, const MPI_Request reqs[], struct mpidbg_reqref *stack)
{
    if (count <= 0)
        return stack;
    if (!reqs) {
        mpidbg_chk_array(cx, reqs, count, "array_of_requests");
        return NULL;
    }
    struct mpidbg_reqref *c = count <= STACK_REQS ? stack : malloc(sizeof *c * count);
    if (!c)
        return NULL;
    for (int i = 0; i < count; i++)
        ref(cx, reqs[i], "array_of_requests", i, &c[i]);
    return c;
}

static void drop_reqs(struct mpidbg_reqref *c, struct mpidbg_reqref *stack)
{
    if (c != stack)
        free(c);
}

/* chk_statuses checks the statuses array of a completion call on n
 * requests. MPI_STATUSES_IGNORE is NULL in Open MPI's mpi.h: no finding. */
static void chk_statuses(struct mpidbg_cx *cx, MPI_Status *st, int n)
{
    if (st != MPI_STATUSES_IGNORE)
        mpidbg_chk_array(cx, st, n, "array_of_statuses");
}

/* MPI gets the builtin value of a minted request (requests the program
 * holds, as it holds them, are what the checks look at); the program's
 * variable changes only where MPI changed the value it was given. */
#define REAL1(request)                                                        \
    MPI_Request *u_req = request, x_req = MPI_REQUEST_NULL;                   \
    if (request && MPIDBG_IS_MINTED_REQ(*request)) {                          \
        x_req = mpidbg_req_real(*request);                                    \
        request = &x_req;                                                     \
    }
#define BACK1(request)                                                        \
    if (request != u_req && x_req != mpidbg_req_real(*u_req))                 \
        *u_req = x_req;

/* real_reqs returns the array MPI is given: reqs itself when it holds no
 * minted handle, else a scratch copy with their builtin values. */
static MPI_Request *real_reqs(int count, MPI_Request reqs[], MPI_Request *stack)
{
    if (count <= 0 || !reqs)
        return reqs;
    int i = 0;
    while (i < count && !MPIDBG_IS_MINTED_REQ(reqs[i]))
        i++;
    if (i == count)
        return reqs;
    MPI_Request *x = count <= STACK_REQS ? stack : malloc(sizeof *x * count);
    if (!x)
        return reqs; /* MPI rejects the minted handle: better than a wrong answer */
    for (int k = 0; k < count; k++)
        x[k] = mpidbg_req_real(reqs[k]);
    return x;
}

/* back_reqs writes what MPI changed (MPI_REQUEST_NULL where it completed
 * a request) into the program's array. */
static void back_reqs(int count, MPI_Request reqs[], MPI_Request *x, MPI_Request *stack)
{
    if (x == reqs)
        return;
    for (int k = 0; k < count; k++)
        if (x[k] != mpidbg_req_real(reqs[k]))
            reqs[k] = x[k];
    if (x != stack)
        free(x);
}

/* ---- cross-rank work around completion (xr_p2p.c, xr_coll.c) ----
 * Before: a nonblocking collective's agreement is finished (waited for
 * when the call waits for that request anyway, tested otherwise); the
 * blocked-call record names what the call waits for. The statuses MPI
 * writes are the shim's own when the program ignores them, since a
 * completed receive's source and tag find its shadow. After: each
 * completed receive takes its shadow and is checked. */
struct xwait {
    int any;            /* a receive request: statuses are needed */
    int blocked;
    MPI_Status *st;     /* the statuses MPI is given */
    MPI_Status stack[8];
    struct mpidbg_ehswap eh;
};

static void xr_before(struct mpidbg_cx *cx, struct mpidbg_reqref *c, int n, int wait, int mode, struct xwait *xw)
{
    xw->any = xw->blocked = xw->eh.n = 0;
    if (!mpidbg_xr_on || !c)
        return;
    for (int i = 0; i < n; i++) /* before the record: it may wait, and the record is being written meanwhile */
        if (c[i].o && c[i].o->xc)
            mpidbg_xc_req_done(c[i].o, wait && mode == MPIDBG_WAIT_AND);
    if (wait)
        mpidbg_blocked_begin(cx, mode);
    for (int i = 0; i < n; i++) {
        struct mpidbg_robj *o = c[i].o;
        if (!o || !o->rec || !o->active)
            continue;
        struct mpidbg_cobj *co = mpidbg_hmap_get(&mpidbg_comms, o->rec->comm);
        int recv = mpidbg_xr_is_recv(o);
        if (recv && o->xr != MPI_COMM_NULL && o->xr != (MPI_Comm)0) {
            xw->any = 1; /* it takes a shadow */
            if (co && !co->freed)
                mpidbg_eh_swap(&xw->eh, (MPI_Comm)co->handle);
        }
        if (!wait)
            continue;
        int kind = o->coll_seq                      ? MPIDBG_WAIT_COLL
                   : recv                           ? MPIDBG_WAIT_RECV
                   : o->rec->kind == MPIDBG_REQ_SEND ? MPIDBG_WAIT_SEND
                                                    : MPIDBG_WAIT_OTHER;
        if ((kind == MPIDBG_WAIT_RECV || kind == MPIDBG_WAIT_SEND) && o->rec->peer == MPI_PROC_NULL)
            continue;
        int peer = kind == MPIDBG_WAIT_COLL || o->rec->peer == MPI_ANY_SOURCE ? -1 : o->rec->peer;
        mpidbg_blocked_wait(kind, peer, o->rec->tag, co, o->coll_seq, o->call, o->rec->site);
    }
    if (wait) {
        mpidbg_blocked_publish();
        xw->blocked = 1;
    }
}

/* xr_statuses returns the statuses array to give MPI. */
static MPI_Status *xr_statuses(struct xwait *xw, MPI_Status *st, int n)
{
    xw->st = st;
    if (!xw->any || (st != MPI_STATUSES_IGNORE && st != MPI_STATUS_IGNORE) || n <= 0)
        return st;
    xw->st = n <= 8 ? xw->stack : malloc(sizeof *xw->st * n);
    if (!xw->st)
        xw->st = st;
    return xw->st;
}

static int xr_after(struct xwait *xw, struct mpidbg_reqref *c, int count, const int *done, int ndone, MPI_Status *given, int rc)
{
    if (xw->blocked)
        mpidbg_blocked_end();
    if (xw->any && c && xw->st != MPI_STATUSES_IGNORE && xw->st != MPI_STATUS_IGNORE) {
        for (int k = 0; k < ndone; k++) {
            int i = done ? done[k] : k;
            if (i < 0 || i >= count || !c[i].o || c[i].o->serial != c[i].serial)
                continue;
            /* MPI_Waitany's one status and MPI_Waitsome's are by completion, the others by request */
            MPI_Status *st = &xw->st[done ? k : i];
            int err = rc == MPI_ERR_IN_STATUS ? st->MPI_ERROR : rc;
            mpidbg_xr_recv_done(c[i].o, st, err);
        }
    }
    if (xw->st != given && xw->st != xw->stack)
        free(xw->st);
    return mpidbg_eh_restore(&xw->eh, rc);
}

#define PROLOGUE(name, pmpi)                                                  \
    void *ra = __builtin_return_address(0);                                   \
    if (mpidbg_bypass(ra))                                                    \
        return pmpi;                                                          \
    struct mpidbg_cx cx;                                                      \
    mpidbg_enter(&cx, MPIDBG_CALL_##name, ra)

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    PROLOGUE(MPI_Wait, PMPI_Wait(request, status));
    struct mpidbg_reqref r = {MPI_REQUEST_NULL, 0, NULL};
    if (mpidbg_chk_array(&cx, request, 1, "request"))
        ref(&cx, *request, "request", -1, &r);
    if (MPIDBG_REFUSING(&cx))
        return mpidbg_refused(&cx);
    struct xwait xw;
    xr_before(&cx, &r, 1, 1, MPIDBG_WAIT_AND, &xw);
    MPI_Status *given = status;
    status = xr_statuses(&xw, status, 1);
    if (r.o && r.o->tr_n)
        mpidbg_req_track_release(r.o); /* MPI moves the data now */
    REAL1(request);
    int rc = PMPI_Wait(request, status);
    BACK1(request);
    /* an error that is the receive's own (truncation) completes it too */
    int ended = rc == MPI_SUCCESS || (request && *request == MPI_REQUEST_NULL) || mpidbg_xr_truncated(rc);
    rc = xr_after(&xw, &r, 1, NULL, rc == MPI_SUCCESS || mpidbg_xr_truncated(rc), given, rc);
    if (ended && r.o)
        completed(&cx, &r, 1, 0);
    mpidbg_leave(&cx);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    PROLOGUE(MPI_Test, PMPI_Test(request, flag, status));
    struct mpidbg_reqref r = {MPI_REQUEST_NULL, 0, NULL};
    if (mpidbg_chk_array(&cx, request, 1, "request"))
        ref(&cx, *request, "request", -1, &r);
    if (MPIDBG_REFUSING(&cx))
        return mpidbg_refused(&cx);
    struct xwait xw;
    xr_before(&cx, &r, 1, 0, MPIDBG_WAIT_AND, &xw);
    MPI_Status *given = status;
    status = xr_statuses(&xw, status, 1);
    REAL1(request);
    int rc = PMPI_Test(request, flag, status);
    BACK1(request);
    rc = xr_after(&xw, &r, 1, NULL, rc == MPI_SUCCESS && flag && *flag ? 1 : 0, given, rc);
    if (rc == MPI_SUCCESS && r.o && flag && *flag)
        completed(&cx, &r, 1, 0);
    mpidbg_leave(&cx);
    return rc;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    PROLOGUE(MPI_Waitall, PMPI_Waitall(count, array_of_requests, array_of_statuses));
    struct mpidbg_reqref stack[STACK_REQS];
    mpidbg_chk_count(&cx, count, "count");
    chk_statuses(&cx, array_of_statuses, count);
    struct mpidbg_reqref *c = copy_reqs(&cx, count, array_of_requests, stack);
    if (MPIDBG_REFUSING(&cx))
        return refused(&cx, c, stack);
    struct xwait xw;
    xr_before(&cx, c, count, 1, MPIDBG_WAIT_AND, &xw);
    MPI_Status *given = array_of_statuses;
    array_of_statuses = xr_statuses(&xw, array_of_statuses, count);
    mpidbg_req_track_release_all(c, count); /* MPI moves the data now */
    MPI_Request xstack[STACK_REQS], *x = real_reqs(count, array_of_requests, xstack);
    int rc = PMPI_Waitall(count, x, array_of_statuses);
    back_reqs(count, array_of_requests, x, xstack);
    int ok = rc == MPI_SUCCESS;
    if (rc == MPI_ERR_IN_STATUS && c && array_of_statuses != MPI_STATUSES_IGNORE)
        /* MPI-4.1 §3.7.5: the failed and the successful ones completed, the pending did not */
        for (int i = 0; i < count; i++)
            if (array_of_statuses[i].MPI_ERROR != MPI_ERR_PENDING)
                completed(&cx, &c[i], 1, 0);
    rc = xr_after(&xw, c, count, NULL, rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS ? count : 0, given, rc);
    if (ok && c && count > 0)
        completed(&cx, c, count, 0);
    drop_reqs(c, stack);
    mpidbg_leave(&cx);
    return rc;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    PROLOGUE(MPI_Testall, PMPI_Testall(count, array_of_requests, flag, array_of_statuses));
    struct mpidbg_reqref stack[STACK_REQS];
    mpidbg_chk_count(&cx, count, "count");
    chk_statuses(&cx, array_of_statuses, count);
    struct mpidbg_reqref *c = copy_reqs(&cx, count, array_of_requests, stack);
    if (MPIDBG_REFUSING(&cx))
        return refused(&cx, c, stack);
    struct xwait xw;
    xr_before(&cx, c, count, 0, MPIDBG_WAIT_AND, &xw);
    MPI_Status *given = array_of_statuses;
    array_of_statuses = xr_statuses(&xw, array_of_statuses, count);
    MPI_Request xstack[STACK_REQS], *x = real_reqs(count, array_of_requests, xstack);
    int rc = PMPI_Testall(count, x, flag, array_of_statuses);
    back_reqs(count, array_of_requests, x, xstack);
    rc = xr_after(&xw, c, count, NULL, rc == MPI_SUCCESS && flag && *flag ? count : 0, given, rc);
    if (rc == MPI_SUCCESS && c && count > 0 && flag && *flag)
        completed(&cx, c, count, 0);
    drop_reqs(c, stack);
    mpidbg_leave(&cx);
    return rc;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    PROLOGUE(MPI_Waitany, PMPI_Waitany(count, array_of_requests, index, status));
    struct mpidbg_reqref stack[STACK_REQS];
    mpidbg_chk_count(&cx, count, "count");
    struct mpidbg_reqref *c = copy_reqs(&cx, count, array_of_requests, stack);
    if (MPIDBG_REFUSING(&cx))
        return refused(&cx, c, stack);
    struct xwait xw;
    xr_before(&cx, c, count, 1, MPIDBG_WAIT_OR, &xw);
    MPI_Status *given = status;
    status = xr_statuses(&xw, status, 1);
    MPI_Request xstack[STACK_REQS], *x = real_reqs(count, array_of_requests, xstack);
    int rc = PMPI_Waitany(count, x, index, status);
    back_reqs(count, array_of_requests, x, xstack);
    int one = rc == MPI_SUCCESS && index && *index >= 0 && *index < count;
    rc = xr_after(&xw, c, count, one ? index : NULL, one, given, rc);
    if (one && c)
        completed(&cx, &c[*index], 1, 0);
    drop_reqs(c, stack);
    mpidbg_leave(&cx);
    return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    PROLOGUE(MPI_Testany, PMPI_Testany(count, array_of_requests, index, flag, status));
    struct mpidbg_reqref stack[STACK_REQS];
    mpidbg_chk_count(&cx, count, "count");
    struct mpidbg_reqref *c = copy_reqs(&cx, count, array_of_requests, stack);
    if (MPIDBG_REFUSING(&cx))
        return refused(&cx, c, stack);
    struct xwait xw;
    xr_before(&cx, c, count, 0, MPIDBG_WAIT_OR, &xw);
    MPI_Status *given = status;
    status = xr_statuses(&xw, status, 1);
    MPI_Request xstack[STACK_REQS], *x = real_reqs(count, array_of_requests, xstack);
    int rc = PMPI_Testany(count, x, index, flag, status);
    back_reqs(count, array_of_requests, x, xstack);
    int one = rc == MPI_SUCCESS && flag && *flag && index && *index >= 0 && *index < count;
    rc = xr_after(&xw, c, count, one ? index : NULL, one, given, rc);
    if (one && c)
        completed(&cx, &c[*index], 1, 0);
    drop_reqs(c, stack);
    mpidbg_leave(&cx);
    return rc;
}

static void some_done(struct mpidbg_cx *cx, struct mpidbg_reqref *c, int count, const int *outcount, const int *indices)
{
    if (!c || !outcount || *outcount == MPI_UNDEFINED || !indices)
        return;
    if (*outcount > 1) {
        /* the tracker lets go of all of them in one pass over their pages */
        struct mpidbg_reqref stack[STACK_REQS], *d = *outcount <= STACK_REQS ? stack : malloc(sizeof *d * *outcount);
        int k = 0;
        for (int i = 0; d && i < *outcount; i++)
            if (indices[i] >= 0 && indices[i] < count)
                d[k++] = c[indices[i]];
        mpidbg_req_track_release_all(d, k);
        drop_reqs(d, stack);
    }
    for (int i = 0; i < *outcount; i++)
        if (indices[i] >= 0 && indices[i] < count)
            completed(cx, &c[indices[i]], 1, 0);
}

/* some runs MPI_Waitsome or MPI_Testsome, which take the same arguments
 * and complete the requests their indices name, then leaves the call. */
static int some(struct mpidbg_cx *cx, int (*fn)(int, MPI_Request[], int *, int[], MPI_Status[]), int incount,
                MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
    struct mpidbg_reqref stack[STACK_REQS];
    mpidbg_chk_count(cx, incount, "incount");
    mpidbg_chk_array(cx, array_of_indices, incount, "array_of_indices");
    chk_statuses(cx, array_of_statuses, incount);
    struct mpidbg_reqref *c = copy_reqs(cx, incount, array_of_requests, stack);
    if (MPIDBG_REFUSING(cx))
        return refused(cx, c, stack);
    struct xwait xw;
    xr_before(cx, c, incount, fn == PMPI_Waitsome, MPIDBG_WAIT_OR, &xw);
    MPI_Status *given = array_of_statuses;
    array_of_statuses = xr_statuses(&xw, array_of_statuses, incount);
    MPI_Request xstack[STACK_REQS], *x = real_reqs(incount, array_of_requests, xstack);
    int rc = fn(incount, x, outcount, array_of_indices, array_of_statuses);
    back_reqs(incount, array_of_requests, x, xstack);
    int nd = (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && outcount && *outcount != MPI_UNDEFINED && array_of_indices ? *outcount : 0;
    rc = xr_after(&xw, c, incount, array_of_indices, nd, given, rc);
    if (rc == MPI_SUCCESS)
        some_done(cx, c, incount, outcount, array_of_indices);
    drop_reqs(c, stack);
    mpidbg_leave(cx);
    return rc;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    PROLOGUE(MPI_Waitsome, PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses));
    return some(&cx, PMPI_Waitsome, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    PROLOGUE(MPI_Testsome, PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses));
    return some(&cx, PMPI_Testsome, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

/* MPI_Request_free: the request must be one the program holds and not
 * MPI_REQUEST_NULL (MPI-4.1 §3.7.3). An active operation goes on, but
 * the program can no longer learn when; its buffers stop being pending
 * so that later reuse is not reported. */
int MPI_Request_free(MPI_Request *request)
{
    PROLOGUE(MPI_Request_free, PMPI_Request_free(request));
    struct mpidbg_reqref r = {MPI_REQUEST_NULL, 0, NULL};
    if (mpidbg_chk_array(&cx, request, 1, "request")) {
        if (*request == MPI_REQUEST_NULL) {
            struct mpidbg_ev ev;
            mpidbg_ev_init(&ev, &cx, MPIDBG_F_INVALID_HANDLE, "request");
            ev.hkind = MPIDBG_HK_REQUEST;
            ev.variant = MPIDBG_V_NULL;
            ev.handle = MPIDBG_H(*request);
            mpidbg_report(&cx, &ev);
        } else {
            ref(&cx, *request, "request", -1, &r);
        }
    }
    if (MPIDBG_REFUSING(&cx))
        return mpidbg_refused(&cx);
    REAL1(request);
    int rc = PMPI_Request_free(request);
    BACK1(request);
    if (rc == MPI_SUCCESS && r.o)
        completed(&cx, &r, 1, 1);
    mpidbg_leave(&cx);
    return rc;
}

/* start_check checks one request of MPI_Start(all) and returns its
 * object if it can be started. */
static struct mpidbg_robj *start_check(struct mpidbg_cx *cx, MPI_Request r, const char *arg, int index)
{
    struct mpidbg_ev ev;
    if (r == MPI_REQUEST_NULL) {
        mpidbg_ev_init(&ev, cx, MPIDBG_F_INVALID_HANDLE, arg);
        ev.hkind = MPIDBG_HK_REQUEST;
        ev.variant = MPIDBG_V_NULL;
        ev.index = index;
        ev.handle = MPIDBG_H(r);
        mpidbg_report(cx, &ev);
        return NULL;
    }
    if (!mpidbg_req_check(cx, r, arg, index))
        return NULL;
    struct mpidbg_robj *o = mpidbg_req_lookup(r);
    if (!o->persistent || o->active) {
        mpidbg_ev_init(&ev, cx, o->persistent ? MPIDBG_F_REQUEST_ACTIVE_START : MPIDBG_F_REQUEST_UNKNOWN, arg);
        ev.hkind = MPIDBG_HK_REQUEST;
        ev.variant = o->persistent ? 0 : MPIDBG_V_NOT_PERSISTENT;
        ev.index = index;
        ev.handle = MPIDBG_H(r);
        ev.related_site = o->rec->site;
        ev.related_call = o->call;
        ev.related_kind = MPIDBG_REL_STARTED;
        mpidbg_report(cx, &ev);
        return NULL;
    }
    /* its buffers against those of the operations in flight */
    struct mpidbg_cx sub = *cx;
    sub.nside = 0;
    for (int i = 0; i < o->nseg && sub.nside < MPIDBG_MAX_SIDES; i++) {
        struct mpidbg_side *sd = &sub.sides[sub.nside++];
        sd->name = "request";
        sd->mode = o->seg[i].mode;
        sd->seg = sd->inl;
        sd->inl[0] = o->seg[i];
        sd->nseg = 1;
        sd->lo = o->seg[i].lo;
        sd->hi = o->seg[i].hi;
    }
    mpidbg_pending_check(&sub);
    cx->nfound += sub.nfound;
    return o;
}

int MPI_Start(MPI_Request *request)
{
    PROLOGUE(MPI_Start, PMPI_Start(request));
    struct mpidbg_robj *o = NULL;
    if (mpidbg_chk_array(&cx, request, 1, "request"))
        o = start_check(&cx, *request, "request", -1);
    if (MPIDBG_REFUSING(&cx))
        return mpidbg_refused(&cx);
    REAL1(request);
    int rc = PMPI_Start(request);
    BACK1(request);
    if (rc == MPI_SUCCESS && o)
        mpidbg_req_started(o, &cx);
    mpidbg_leave(&cx);
    return rc;
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    PROLOGUE(MPI_Startall, PMPI_Startall(count, array_of_requests));
    struct mpidbg_robj *stack[STACK_REQS], **os = stack;
    mpidbg_chk_count(&cx, count, "count");
    int ok = mpidbg_chk_array(&cx, array_of_requests, count, "array_of_requests") && count > 0;
    if (ok && count > STACK_REQS)
        os = malloc(sizeof *os * count);
    if (ok && os)
        for (int i = 0; i < count; i++)
            os[i] = start_check(&cx, array_of_requests[i], "array_of_requests", i);
    if (MPIDBG_REFUSING(&cx)) {
        if (os != stack)
            free(os);
        return mpidbg_refused(&cx);
    }
    MPI_Request xstack[STACK_REQS], *x = real_reqs(count, array_of_requests, xstack);
    int rc = PMPI_Startall(count, x);
    back_reqs(count, array_of_requests, x, xstack);
    if (rc == MPI_SUCCESS && ok && os)
        for (int i = 0; i < count; i++)
            if (os[i])
                mpidbg_req_started(os[i], &cx);
    if (os != stack)
        free(os);
    mpidbg_leave(&cx);
    return rc;
}
