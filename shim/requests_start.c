/*
 * The start and free wrappers (requests.c has the records).
 *
 * Start contract (MPI-4.1 §3.9): the request is a persistent request of the
 * program's and not active (request-active-start); its buffers are
 * checked against the pending ones; post: it is active and they are
 * pending.
 */
#include <stdlib.h>
#include <string.h>

#include "requests.h"

/* MPI_Request_free: the request must be one the program holds and not
 * MPI_REQUEST_NULL (MPI-4.1 §3.7.3). An active operation goes on, but
 * the program can no longer learn when; its buffers stop being pending
 * so that later reuse is not reported. */
int MPI_Request_free(MPI_Request *request)
{
    void *ra = __builtin_return_address(0);
    if (mpidbg_bypass(ra)) {
        /* freed inside another MPI call (an attribute's delete callback
         * that MPI_Comm_free runs): the record goes all the same */
        if (!mpidbg_depth || !mpidbg_active || !request || MPIDBG_IS_BUILTIN_REQ(*request))
            return PMPI_Request_free(request);
        struct mpidbg_reqref r = {*request, 0, mpidbg_req_lookup(*request)};
        if (r.o && !r.o->live)
            r.o = NULL;
        r.serial = r.o ? r.o->serial : 0;
        REAL1(request);
        int rc = PMPI_Request_free(request);
        BACK1(request);
        if (rc == MPI_SUCCESS && r.o) {
            struct mpidbg_cx cx;
            memset(&cx, 0, sizeof cx);
            cx.site = (uint64_t)(uintptr_t)ra;
            cx.call = MPIDBG_CALL_MPI_Request_free;
            mpidbg_req_completed(&cx, &r, 1, 1);
        }
        return rc;
    }
    struct mpidbg_cx cx;
    mpidbg_enter(&cx, MPIDBG_CALL_MPI_Request_free, ra);
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
            mpidbg_req_ref(&cx, *request, "request", -1, &r);
        }
    }
    if (MPIDBG_REFUSING(&cx))
        return mpidbg_refused(&cx);
    REAL1(request);
    int rc = PMPI_Request_free(request);
    BACK1(request);
    if (rc == MPI_SUCCESS && r.o)
        mpidbg_req_completed(&cx, &r, 1, 1);
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
    if (!o)
        return NULL; /* made by a call the shim does not wrap (Open MPI's MPIX_Allreduce_init): started unchecked */
    if (o->starting) {
        /* MPI_Startall lists it twice: the second start would find it
         * active */
        mpidbg_ev_init(&ev, cx, MPIDBG_F_REQUEST_ACTIVE_START, arg);
        ev.hkind = MPIDBG_HK_REQUEST;
        ev.variant = MPIDBG_V_TWICE;
        ev.index = index;
        ev.val = o->starting - 1;
        ev.handle = MPIDBG_H(r);
        mpidbg_report(cx, &ev);
        return NULL;
    }
    if (!o->persistent || o->active) {
        mpidbg_ev_init(&ev, cx, o->persistent ? MPIDBG_F_REQUEST_ACTIVE_START : MPIDBG_F_REQUEST_UNKNOWN, arg);
        ev.hkind = MPIDBG_HK_REQUEST;
        ev.variant = o->persistent ? 0 : MPIDBG_V_NOT_PERSISTENT;
        ev.index = index;
        ev.handle = MPIDBG_H(r);
        ev.related_site = o->start_site ? o->start_site : o->rec->site; /* a persistent one's MPI_Start */
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
    if (sub.nfound > cx->nfound)
        cx->fatal_said = sub.fatal_said; /* as the findings left it (shim.h) */
    cx->nfound += sub.nfound;
    mpidbg_xr_start(o);
    if (index >= 0)
        o->starting = index + 1; /* MPI_Startall's: a later entry that is o again finds it */
    return o;
}

/* watched_before: a persistent point-to-point receive whose message is
 * there already is filled inside MPI_Start, as MPI_Irecv's is
 * (requests_track.c): its buffer is watched from just before the PMPI
 * call (start_pre), so that the library's copy counts as the data's
 * arrival. Only MPI_Recv_init's: a persistent collective's start may
 * write this rank's own part of the result, which is no arrival
 * (partitioned operations are not watched at all). */
static int watched_before(const struct mpidbg_robj *o)
{
    return o->call == MPIDBG_CALL_MPI_Recv_init || o->call == MPIDBG_CALL_MPI_Recv_init_c;
}

static void start_pre(struct mpidbg_cx *cx, struct mpidbg_robj *o)
{
    if (o && watched_before(o))
        mpidbg_req_track_start(cx, o, 0);
}

/* start_post: the request started (ok), or its start failed or was
 * refused: the buffers start_pre watched are watched no longer (a
 * request refused before start_pre has none: its last completion gave
 * them back). */
static void start_post(struct mpidbg_cx *cx, struct mpidbg_robj *o, int ok)
{
    if (!o)
        return;
    o->starting = 0;
    if (ok) {
        o->start_site = cx->site;
        mpidbg_req_started(o);
        if (!watched_before(o)) /* else start_pre did */
            mpidbg_req_track_start(cx, o, 0);
        return;
    }
    if (watched_before(o))
        mpidbg_req_track_end(NULL, o);
    mpidbg_xr_req_gone(o);
}

int MPI_Start(MPI_Request *request)
{
    PROLOGUE(MPI_Start, PMPI_Start(request));
    struct mpidbg_robj *o = NULL;
    if (mpidbg_chk_array(&cx, request, 1, "request"))
        o = start_check(&cx, *request, "request", -1);
    if (MPIDBG_REFUSING(&cx)) {
        start_post(&cx, o, 0);
        return mpidbg_refused(&cx);
    }
    start_pre(&cx, o);
    REAL1(request);
    int rc = PMPI_Start(request);
    BACK1(request);
    start_post(&cx, o, rc == MPI_SUCCESS);
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
        for (int i = 0; ok && os && i < count; i++)
            start_post(&cx, os[i], 0);
        if (os != stack)
            free(os);
        return mpidbg_refused(&cx);
    }
    /* before any buffer is watched: it may allocate, beside a watched
     * heap buffer */
    MPI_Request xstack[STACK_REQS], *x = mpidbg_reqs_real(count, array_of_requests, xstack);
    for (int i = 0; ok && os && i < count; i++)
        start_pre(&cx, os[i]);
    int rc = PMPI_Startall(count, x);
    mpidbg_reqs_back(count, array_of_requests, x, xstack);
    for (int i = 0; ok && os && i < count; i++)
        start_post(&cx, os[i], rc == MPI_SUCCESS);
    if (os != stack)
        free(os);
    mpidbg_leave(&cx);
    return rc;
}
