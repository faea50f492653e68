/*
 * The completion wrappers (requests.c has the records).
 *
 * Completion family contract (MPI-4.1 §3.7.3-§3.7.5, §3.9):
 *   pre:  the request array is not NULL when count > 0; every request is
 *         MPI_REQUEST_NULL or a request the program holds (request-unknown
 *         otherwise: never made, or completed or freed already); the
 *         handles are copied, as MPI overwrites them.
 *   post: each completed request stops being active and its buffers
 *         stop being pending; a nonblocking request is gone, a persistent
 *         one stays, inactive; MPI_Comm_idup's communicator is recorded.
 *         Completed: every request when MPI returns MPI_SUCCESS; under an
 *         error, a request whose own error it is (a truncation, or its
 *         status under MPI_ERR_IN_STATUS) once MPI freed it (its handle
 *         is MPI_REQUEST_NULL) or made it inactive (persistent): MPI-4.1
 *         §3.7.5 leaves freeing a failed request to the implementation.
 */
#include <stdlib.h>
#include <string.h>

#include "requests.h"

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
        mpidbg_req_ref(cx, reqs[i], "array_of_requests", i, &c[i]);
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
    int poll, mode;     /* a test: its requests may be polled (blocked.c) */
    MPI_Status *st;     /* the statuses MPI is given */
    MPI_Status stack[8];
    struct mpidbg_ehswap eh;
    /* MPI_THREAD_MULTIPLE: the receive requests as they were before MPI
     * completed them (mpidbg_xr_snap) */
    struct mpidbg_xr_rsnap *snap, snap_stack[4];
    struct mpidbg_anycache *a; /* the any calls' cache of the requests, NULL none */
};

/* gone: after a call that returned an error for this request, whether
 * MPI completed it: freed it (a nonblocking request's handle is
 * MPI_REQUEST_NULL) or left it inactive (a persistent one). */
static int gone(const struct mpidbg_reqref *r, MPI_Request h)
{
    return r->o && (h == MPI_REQUEST_NULL || r->o->persistent);
}

/* in_status: under MPI_ERR_IN_STATUS from MPI_Waitall or MPI_Testall,
 * the requests in [from, count) whose status is not MPI_ERR_PENDING and
 * that MPI completed (gone), as indices into done (room for count); read
 * before xr_after, which may free the statuses. Returns how many. */
static int in_status(const struct mpidbg_reqref *c, const MPI_Request reqs[], const MPI_Status *st, int from, int count,
                     int *done)
{
    int n = 0;
    for (int i = from; c && done && st != MPI_STATUSES_IGNORE && i < count; i++)
        if (st[i].MPI_ERROR != MPI_ERR_PENDING && (st[i].MPI_ERROR == MPI_SUCCESS || gone(&c[i], reqs[i])))
            done[n++] = i;
    return n;
}

/* comm_of is the communicator (window) a request was made on; last is
 * the one found before, which consecutive requests of an array share */
static struct mpidbg_cobj *comm_of(const struct mpidbg_robj *o, struct mpidbg_cobj **last)
{
    if (*last && (*last)->handle == o->rec->comm)
        return *last;
    return *last = mpidbg_hmap_get(&mpidbg_comms, o->rec->comm);
}

/* record_wait writes what an active request waits for into the
 * blocked-call record (between mpidbg_blocked_begin and publish). */
static void record_wait(struct mpidbg_robj *o, struct mpidbg_cobj **last)
{
    int kind = mpidbg_wait_kind(o);
    if (!kind)
        return;
    int peer = kind == MPIDBG_WAIT_COLL || o->rec->peer == MPI_ANY_SOURCE ? -1 : o->rec->peer;
    mpidbg_blocked_wait(kind, peer, o->rec->tag, comm_of(o, last), o->coll_seq, o->call, o->rec->site);
}

static void record_waits(struct mpidbg_reqref *c, int n)
{
    struct mpidbg_cobj *last = NULL;
    for (int i = 0; i < n; i++)
        if (c[i].o && c[i].o->rec && c[i].o->active)
            record_wait(c[i].o, &last);
}

/* any_record writes the waits of the any calls' cached array into the
 * blocked-call record: the first MPIDBG_WAIT_MAX, and how many more */
static void any_record(struct mpidbg_anycache *a)
{
    struct mpidbg_cobj *last = NULL;
    int k = 0;
    for (int i = mpidbg_any_first(a); i < a->n && k < MPIDBG_WAIT_MAX; i++)
        if (a->kind[i]) {
            record_wait(a->c[i].o, &last);
            k++;
        }
    mpidbg_blocked_more(a->nwaits - k);
}

/* polled: a test returned without completing any of its requests. The
 * rank polls them: the episode goes on, or a new one starts with a
 * record of its own (blocked.c); requests that wait for nothing start
 * none. a: the any calls' cache of c, else NULL. */
static void polled(struct mpidbg_cx *cx, struct mpidbg_reqref *c, int n, int mode, struct mpidbg_anycache *a)
{
    uint64_t key = MPIDBG_FNV64_BASIS;
    int waits = 0;
    if (a) {
        key = mpidbg_fnv64(mpidbg_fnv64(key, a->id), a->version);
        waits = a->nwaits;
    }
    for (int i = 0; !a && i < n; i++) {
        struct mpidbg_robj *o = c[i].o;
        key = mpidbg_fnv64(mpidbg_fnv64(key, (uint64_t)(uintptr_t)o), c[i].serial);
        waits += o && o->rec && o->active && mpidbg_wait_kind(o);
    }
    if (!waits) {
        mpidbg_poll_stop();
        return;
    }
    if (mpidbg_poll_continues(key))
        return;
    mpidbg_blocked_begin(cx, mode);
    if (a)
        any_record(a);
    else
        record_waits(c, n);
    mpidbg_poll_publish(key);
}

/* xr_before: a the any calls' cache of c, else NULL */
static void xr_before(struct mpidbg_cx *cx, struct mpidbg_reqref *c, int n, int wait, int mode, struct xwait *xw,
                      struct mpidbg_anycache *a)
{
    xw->any = xw->blocked = xw->poll = xw->eh.n = 0;
    xw->snap = NULL;
    xw->a = a;
    if (!mpidbg_xr_on || !c)
        return;
    if (!wait) {
        xw->poll = 1;
        xw->mode = mode;
        mpidbg_poll_enter();
    }
    if (wait)
        mpidbg_blocked_begin(cx, mode);
    if (a) {
        if (wait) {
            any_record(a);
            mpidbg_blocked_publish();
            xw->blocked = 1;
        }
        struct mpidbg_cobj *co = a->nrecv ? mpidbg_hmap_get(&mpidbg_comms, a->comm) : NULL;
        xw->any = a->nrecv > 0;
        if (co && !co->freed)
            mpidbg_eh_swap(&xw->eh, (MPI_Comm)co->handle);
        return;
    }
    /* one pass over the requests: an array of thousands costs a cache
     * miss or two per request, once */
    struct mpidbg_cobj *last = NULL;
    int agree = 0;
    for (int i = 0; i < n; i++) {
        struct mpidbg_robj *o = c[i].o;
        agree |= o && o->xc;
        if (!o || !o->rec || !o->active)
            continue;
        if (wait)
            record_wait(o, &last);
        if (mpidbg_xr_is_recv(o) && o->xr != MPI_COMM_NULL && o->xr != (MPI_Comm)0) {
            if (mpidbg_mt && !xw->snap) {
                xw->snap = n <= 4 ? xw->snap_stack : calloc((size_t)n, sizeof *xw->snap);
                for (int k = 0; xw->snap && k < n; k++)
                    xw->snap[k].o = NULL;
            }
            if (xw->snap)
                mpidbg_xr_snap(o, &xw->snap[i]);
            xw->any = 1; /* it takes a shadow */
            struct mpidbg_cobj *co = comm_of(o, &last);
            if (co && !co->freed)
                mpidbg_eh_swap(&xw->eh, (MPI_Comm)co->handle);
        }
    }
    if (wait) {
        mpidbg_blocked_publish();
        xw->blocked = 1;
    }
    /* after the record is published: finishing an agreement may wait for
     * a rank that never calls the collective, and the deadlock detector
     * must see this rank blocked on it meanwhile */
    for (int i = 0; agree && i < n; i++)
        if (c[i].o && c[i].o->xc)
            mpidbg_xc_req_done(c[i].o, wait && mode == MPIDBG_WAIT_AND);
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

/* posted is when the k-th completed request was posted (started), in
 * the rank's order. */
static uint64_t posted(const struct xwait *xw, const struct mpidbg_reqref *c, int count, const int *done, int k)
{
    int i = done ? done[k] : k;
    if (i < 0 || i >= count)
        return 0;
    if (xw->snap && xw->snap[i].o)
        return xw->snap[i].post;
    return c[i].o && c[i].o->serial == c[i].serial ? c[i].o->xr_post : 0;
}

struct by_post {
    uint64_t post;
    int k;
};

static int cmp_post(const void *a, const void *b)
{
    uint64_t x = ((const struct by_post *)a)->post, y = ((const struct by_post *)b)->post;
    return x < y ? -1 : x > y;
}

static int xr_after(struct mpidbg_cx *cx, struct xwait *xw, struct mpidbg_reqref *c, int count, const int *done, int ndone,
                    MPI_Status *given, int rc)
{
    if (xw->blocked)
        mpidbg_blocked_end();
    if (xw->poll) {
        if (rc == MPI_SUCCESS && ndone == 0)
            polled(cx, c, count, xw->mode, xw->a);
        else
            mpidbg_poll_stop();
    }
    if (xw->any && c && xw->st != MPI_STATUSES_IGNORE && xw->st != MPI_STATUS_IGNORE) {
        /* in the order the receives were posted, which is the order in
         * which they matched the messages of one stream (MPI-4.1 §3.5),
         * not the order of the program's array: each pulls the next
         * shadow of its stream */
        struct by_post ostack[8], *order = ndone <= 8 ? ostack : malloc(sizeof *order * (size_t)ndone);
        int sorted = 1;
        for (int k = 0; order && k < ndone; k++) {
            order[k].post = posted(xw, c, count, done, k);
            order[k].k = k;
            if (k && order[k].post < order[k - 1].post)
                sorted = 0;
        }
        if (order && !sorted)
            qsort(order, (size_t)ndone, sizeof *order, cmp_post);
        for (int kk = 0; kk < ndone; kk++) {
            int k = order ? order[kk].k : kk;
            int i = done ? done[k] : k;
            if (i < 0 || i >= count || !c[i].o || (!xw->snap && c[i].o->serial != c[i].serial))
                continue;
            /* MPI_Waitany's one status and MPI_Waitsome's are by completion, the others by request */
            MPI_Status *st = &xw->st[done ? k : i];
            int err = rc == MPI_ERR_IN_STATUS ? st->MPI_ERROR : rc;
            if (xw->snap)
                mpidbg_xr_recv_snap(&xw->snap[i], st, err);
            else
                mpidbg_xr_recv_done(c[i].o, st, err);
        }
        if (order != ostack)
            free(order);
    }
    if (xw->snap && xw->snap != xw->snap_stack)
        free(xw->snap);
    if (xw->st != given && xw->st != xw->stack)
        free(xw->st);
    return mpidbg_eh_restore(cx, &xw->eh, rc);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    PROLOGUE(MPI_Wait, PMPI_Wait(request, status));
    struct mpidbg_reqref r = {MPI_REQUEST_NULL, 0, NULL};
    if (mpidbg_chk_array(&cx, request, 1, "request"))
        mpidbg_req_ref(&cx, *request, "request", -1, &r);
    if (MPIDBG_REFUSING(&cx))
        return mpidbg_refused(&cx);
    struct xwait xw;
    xr_before(&cx, &r, 1, 1, MPIDBG_WAIT_AND, &xw, NULL);
    MPI_Status *given = status;
    status = xr_statuses(&xw, status, 1);
    if (r.o && r.o->tr_n)
        mpidbg_req_track_release(r.o); /* MPI moves the data now */
    REAL1(request);
    int rc = PMPI_Wait(request, status);
    BACK1(request);
    /* an error that is the receive's own (truncation) completes it too */
    int ended = rc == MPI_SUCCESS || (request && *request == MPI_REQUEST_NULL) || mpidbg_xr_truncated(rc);
    rc = xr_after(&cx, &xw, &r, 1, NULL, rc == MPI_SUCCESS || mpidbg_xr_truncated(rc), given, rc);
    if (ended && r.o)
        mpidbg_req_completed(&cx, &r, 1, 0);
    mpidbg_leave(&cx);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    PROLOGUE(MPI_Test, PMPI_Test(request, flag, status));
    struct mpidbg_reqref r = {MPI_REQUEST_NULL, 0, NULL};
    if (mpidbg_chk_array(&cx, request, 1, "request"))
        mpidbg_req_ref(&cx, *request, "request", -1, &r);
    if (MPIDBG_REFUSING(&cx))
        return mpidbg_refused(&cx);
    struct xwait xw;
    xr_before(&cx, &r, 1, 0, MPIDBG_WAIT_AND, &xw, NULL);
    MPI_Status *given = status;
    status = xr_statuses(&xw, status, 1);
    REAL1(request);
    int rc = PMPI_Test(request, flag, status);
    BACK1(request);
    /* a truncation is the receive's own error: it completed it (flag set) */
    int done = flag && *flag && (rc == MPI_SUCCESS || (mpidbg_xr_truncated(rc) && request && gone(&r, *request)));
    rc = xr_after(&cx, &xw, &r, 1, NULL, done, given, rc);
    if (done && r.o)
        mpidbg_req_completed(&cx, &r, 1, 0);
    mpidbg_leave(&cx);
    return rc;
}

/* waitall_steps is PMPI_Waitall, in steps of as many requests as the
 * blocked-call record lists when the call waits for more (blocked: the
 * record was begun). Inside one PMPI_Waitall over tens of thousands of
 * requests MPI completes them where the deadlock detector cannot see
 * it, and a record that names only the first requests (whose partners
 * are not in the partners' records either) would look stuck to it on a
 * busy machine; with a record per step, progress shows, and a step that
 * is stuck names the requests that hold it. MPI progresses every pending
 * operation inside any blocking call (MPI-4.1 §3.7.4), so waiting for the
 * requests in steps completes whatever waiting for all at once completes.
 * A step that fails leaves the later ones pending, as MPI_Waitall may
 * (§3.7.5: MPI_ERR_PENDING in their statuses); *before is how many
 * requests the steps before it completed. */
static int waitall_steps(struct mpidbg_cx *cx, struct mpidbg_reqref *c, int count, MPI_Request *x, MPI_Status *st,
                         int blocked, int *before)
{
    *before = 0;
    if (!blocked || !c || count <= MPIDBG_WAIT_MAX) {
        int rc = PMPI_Waitall(count, x, st);
        if (rc == MPI_SUCCESS)
            *before = count;
        return rc;
    }
    for (int at = 0; at < count; at += MPIDBG_WAIT_MAX) {
        int n = count - at < MPIDBG_WAIT_MAX ? count - at : MPIDBG_WAIT_MAX;
        if (at) {
            mpidbg_blocked_begin(cx, MPIDBG_WAIT_AND);
            record_waits(c + at, n);
            mpidbg_blocked_publish();
        }
        int rc = PMPI_Waitall(n, x + at, st == MPI_STATUSES_IGNORE ? st : st + at);
        if (rc == MPI_SUCCESS) {
            *before = at + n;
            continue;
        }
        if (rc == MPI_ERR_IN_STATUS && st != MPI_STATUSES_IGNORE) {
            for (int k = 0; k < at; k++)
                st[k].MPI_ERROR = MPI_SUCCESS;
            for (int k = at + n; k < count; k++)
                st[k].MPI_ERROR = MPI_ERR_PENDING;
        }
        return rc;
    }
    return MPI_SUCCESS;
}

/* errored_done: after a Waitall or Testall that failed, the requests that
 * completed all the same: the first before (steps that succeeded), and
 * under MPI_ERR_IN_STATUS those in_status finds. malloc'd unless count
 * fits dstack; NULL when none. */
static int *errored_done(const struct mpidbg_reqref *c, const MPI_Request reqs[], const MPI_Status *st, int count, int rc,
                         int before, int *dstack, int *n)
{
    *n = 0;
    if (rc == MPI_SUCCESS || !c || count <= 0)
        return NULL;
    int *done = count <= STACK_REQS ? dstack : malloc(sizeof *done * (size_t)count);
    for (int i = 0; done && i < before; i++)
        done[(*n)++] = i;
    if (done && rc == MPI_ERR_IN_STATUS)
        *n += in_status(c, reqs, st, before, count, done + *n);
    return done;
}

/* complete_listed completes the requests errored_done listed. */
static void complete_listed(struct mpidbg_cx *cx, struct mpidbg_reqref *c, int *done, int n, int *dstack)
{
    for (int k = 0; k < n; k++)
        mpidbg_req_completed(cx, &c[done[k]], 1, 0);
    if (done != dstack)
        free(done);
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
    xr_before(&cx, c, count, 1, MPIDBG_WAIT_AND, &xw, NULL);
    MPI_Status *given = array_of_statuses;
    array_of_statuses = xr_statuses(&xw, array_of_statuses, count);
    mpidbg_req_track_release_all(c, count); /* MPI moves the data now */
    MPI_Request xstack[STACK_REQS], *x = mpidbg_reqs_real(count, array_of_requests, xstack);
    int before = 0;
    int rc = waitall_steps(&cx, c, count, x, array_of_statuses, xw.blocked, &before);
    mpidbg_reqs_back(count, array_of_requests, x, xstack);
    int ok = rc == MPI_SUCCESS, dstack[STACK_REQS], nd = 0;
    int *done = errored_done(c, array_of_requests, array_of_statuses, count, rc, before, dstack, &nd);
    rc = xr_after(&cx, &xw, c, count, NULL, rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS ? count : 0, given, rc);
    if (ok && c && count > 0)
        mpidbg_req_completed(&cx, c, count, 0);
    if (done)
        complete_listed(&cx, c, done, nd, dstack);
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
    xr_before(&cx, c, count, 0, MPIDBG_WAIT_AND, &xw, NULL);
    MPI_Status *given = array_of_statuses;
    array_of_statuses = xr_statuses(&xw, array_of_statuses, count);
    MPI_Request xstack[STACK_REQS], *x = mpidbg_reqs_real(count, array_of_requests, xstack);
    int rc = PMPI_Testall(count, x, flag, array_of_statuses);
    mpidbg_reqs_back(count, array_of_requests, x, xstack);
    int ok = rc == MPI_SUCCESS && flag && *flag, dstack[STACK_REQS], nd = 0;
    int *done = errored_done(c, array_of_requests, array_of_statuses, count, rc, 0, dstack, &nd);
    rc = xr_after(&cx, &xw, c, count, NULL, ok || rc == MPI_ERR_IN_STATUS ? count : 0, given, rc);
    if (ok && c && count > 0)
        mpidbg_req_completed(&cx, c, count, 0);
    if (done)
        complete_listed(&cx, c, done, nd, dstack);
    drop_reqs(c, stack);
    mpidbg_leave(&cx);
    return rc;
}

/* any_refs: the requests of an any call, from its cache (*a set,
 * requests_any.c) or copied into stack */
static struct mpidbg_reqref *any_refs(struct mpidbg_cx *cx, int count, MPI_Request reqs[], struct mpidbg_reqref *stack,
                                      struct mpidbg_anycache **a)
{
    struct mpidbg_reqref *c;
    if ((*a = mpidbg_any_refs(cx, count, reqs)) != NULL)
        return (*a)->c;
    c = copy_reqs(cx, count, reqs, stack);
    if ((*a = mpidbg_any_keep(count, reqs, c)) != NULL) {
        drop_reqs(c, stack);
        c = (*a)->c;
    }
    return c;
}

/* any_one: an any call completed the request index names (a
 * truncation is the receive's own error: index names it too) */
static int any_one(int rc, const int *index, int count, const struct mpidbg_reqref *c, const MPI_Request reqs[])
{
    return index && *index >= 0 && *index < count &&
           (rc == MPI_SUCCESS || (mpidbg_xr_truncated(rc) && c && gone(&c[*index], reqs[*index])));
}

/* any_end ends an any call: the request at index completed (-1: none),
 * and the copy of the requests goes */
static void any_end(struct mpidbg_cx *cx, struct mpidbg_anycache *a, struct mpidbg_reqref *c, struct mpidbg_reqref *stack,
                    int index, MPI_Request reqs[])
{
    if (index >= 0 && a)
        mpidbg_any_completed(cx, a, index, reqs);
    else if (index >= 0 && c)
        mpidbg_req_completed(cx, &c[index], 1, 0);
    if (!a)
        drop_reqs(c, stack);
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    PROLOGUE(MPI_Waitany, PMPI_Waitany(count, array_of_requests, index, status));
    struct mpidbg_reqref stack[STACK_REQS];
    mpidbg_chk_count(&cx, count, "count");
    struct mpidbg_anycache *a;
    struct mpidbg_reqref *c = any_refs(&cx, count, array_of_requests, stack, &a);
    if (MPIDBG_REFUSING(&cx))
        return refused(&cx, a ? NULL : c, stack);
    struct xwait xw;
    xr_before(&cx, c, count, 1, MPIDBG_WAIT_OR, &xw, a);
    MPI_Status *given = status;
    status = xr_statuses(&xw, status, 1);
    MPI_Request xstack[STACK_REQS], *x = mpidbg_reqs_real(count, array_of_requests, xstack);
    int rc = PMPI_Waitany(count, x, index, status);
    mpidbg_reqs_back(count, array_of_requests, x, xstack);
    int one = any_one(rc, index, count, c, array_of_requests);
    rc = xr_after(&cx, &xw, c, count, one ? index : NULL, one, given, rc);
    any_end(&cx, a, c, stack, one ? *index : -1, array_of_requests);
    mpidbg_leave(&cx);
    return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    PROLOGUE(MPI_Testany, PMPI_Testany(count, array_of_requests, index, flag, status));
    struct mpidbg_reqref stack[STACK_REQS];
    mpidbg_chk_count(&cx, count, "count");
    struct mpidbg_anycache *a;
    struct mpidbg_reqref *c = any_refs(&cx, count, array_of_requests, stack, &a);
    if (MPIDBG_REFUSING(&cx))
        return refused(&cx, a ? NULL : c, stack);
    struct xwait xw;
    xr_before(&cx, c, count, 0, MPIDBG_WAIT_OR, &xw, a);
    MPI_Status *given = status;
    status = xr_statuses(&xw, status, 1);
    MPI_Request xstack[STACK_REQS], *x = mpidbg_reqs_real(count, array_of_requests, xstack);
    int rc = PMPI_Testany(count, x, index, flag, status);
    mpidbg_reqs_back(count, array_of_requests, x, xstack);
    int one = flag && *flag && any_one(rc, index, count, c, array_of_requests);
    rc = xr_after(&cx, &xw, c, count, one ? index : NULL, one, given, rc);
    any_end(&cx, a, c, stack, one ? *index : -1, array_of_requests);
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
            mpidbg_req_completed(cx, &c[indices[i]], 1, 0);
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
    xr_before(cx, c, incount, fn == PMPI_Waitsome, MPIDBG_WAIT_OR, &xw, NULL);
    MPI_Status *given = array_of_statuses;
    array_of_statuses = xr_statuses(&xw, array_of_statuses, incount);
    MPI_Request xstack[STACK_REQS], *x = mpidbg_reqs_real(incount, array_of_requests, xstack);
    int rc = fn(incount, x, outcount, array_of_indices, array_of_statuses);
    mpidbg_reqs_back(incount, array_of_requests, x, xstack);
    int prc = rc;
    int nd = (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && outcount && *outcount != MPI_UNDEFINED && array_of_indices ? *outcount : 0;
    rc = xr_after(cx, &xw, c, incount, array_of_indices, nd, given, rc);
    /* under MPI_ERR_IN_STATUS the indices name the failed requests too:
     * completed if MPI freed them (gone); the shim works on its own copy
     * of the indices, the program's stay as MPI wrote them */
    int istack[STACK_REQS], *idx = array_of_indices;
    if (prc == MPI_ERR_IN_STATUS && nd && c) {
        idx = nd <= STACK_REQS ? istack : malloc(sizeof *idx * (size_t)nd);
        int k = 0;
        for (int i = 0; idx && i < nd; i++) {
            int j = array_of_indices[i];
            if (j >= 0 && j < incount && gone(&c[j], array_of_requests[j]))
                idx[k++] = j;
        }
        nd = idx ? k : 0;
    }
    if (nd)
        some_done(cx, c, incount, &nd, idx);
    if (idx != array_of_indices && idx != istack)
        free(idx);
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

/* MPI_Request_get_status (§3.7.6) completes no request, but flag = true
 * says the operation is complete, which hands its buffers back to the
 * program (§2.4). The pre hook sees the program's handle (a minted one
 * too), the post hook only its real value: the request is looked up
 * before the call. */
static __thread struct mpidbg_reqref status_ref __attribute__((tls_model("initial-exec")));

void mpidbg_pre_MPI_Request_get_status(struct mpidbg_cx *cx, MPI_Request request, int *flag, MPI_Status *status)
{
    (void)cx;
    (void)flag;
    (void)status;
    status_ref = (struct mpidbg_reqref){.h = request};
    if (request == MPI_REQUEST_NULL || MPIDBG_IS_BUILTIN_REQ(request))
        return;
    struct mpidbg_robj *o = mpidbg_req_lookup(request);
    if (o && o->live) {
        status_ref.o = o;
        status_ref.serial = o->serial;
    }
}

void mpidbg_post_MPI_Request_get_status(struct mpidbg_cx *cx, MPI_Request request, int *flag, MPI_Status *status)
{
    (void)request;
    (void)status;
    if (flag && *flag)
        mpidbg_req_buffers_done(cx, &status_ref);
    status_ref.o = NULL;
}
