/*
 * What the request files share (requests.c, requests_complete.c,
 * requests_start.c): the wrappers' prologue, the translation of minted
 * handles for MPI, and the helpers each wrapper uses on the requests it
 * is given. Only those files include it; shim.h is the shim's interface.
 */
#ifndef MPIDBG_REQUESTS_H
#define MPIDBG_REQUESTS_H

#include <stdlib.h>

#include "shim.h"

#define STACK_REQS 64

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

#define PROLOGUE(name, pmpi)                                                  \
    void *ra = __builtin_return_address(0);                                   \
    if (mpidbg_bypass(ra))                                                    \
        return pmpi;                                                          \
    struct mpidbg_cx cx;                                                      \
    mpidbg_enter(&cx, MPIDBG_CALL_##name, ra)

/* The any calls' cache of one request array (requests_any.c) is
 * stale once a request in it is made again, started or completed by
 * another call: each of those calls mpidbg_req_changed. */
MPIDBG_HIDDEN extern uint32_t mpidbg_any_id;
MPIDBG_HIDDEN extern int mpidbg_any_stale;
static inline void mpidbg_req_changed(const struct mpidbg_robj *o)
{
    if (o->any_id && o->any_id == mpidbg_any_id)
        mpidbg_any_stale = 1;
}

MPIDBG_HIDDEN void mpidbg_req_completed(struct mpidbg_cx *cx, const struct mpidbg_reqref *rs, int n, int freed);
MPIDBG_HIDDEN void mpidbg_req_buffers_done(struct mpidbg_cx *cx, const struct mpidbg_reqref *r);

/* mpidbg_req_ref checks one request and keeps what completion will
 * need. Inline: every MPI_Wait and MPI_Test runs it. */
static inline void mpidbg_req_ref(struct mpidbg_cx *cx, MPI_Request h, const char *arg, int index, struct mpidbg_reqref *out)
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

/* mpidbg_reqs_real returns the array MPI is given: reqs itself when it
 * holds no minted handle, else a scratch copy with their builtin values.
 * Inline, as mpidbg_req_ref: every MPI_Waitall and MPI_Testall runs it. */
static inline MPI_Request *mpidbg_reqs_real(int count, MPI_Request reqs[], MPI_Request *stack)
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

/* mpidbg_reqs_back writes what MPI changed (MPI_REQUEST_NULL where it
 * completed a request) into the program's array. */
static inline void mpidbg_reqs_back(int count, MPI_Request reqs[], MPI_Request *x, MPI_Request *stack)
{
    if (x == reqs)
        return;
    for (int k = 0; k < count; k++)
        if (x[k] != mpidbg_req_real(reqs[k]))
            reqs[k] = x[k];
    if (x != stack)
        free(x);
}

/* mpidbg_wait_kind is what an active request waits for (MPIDBG_WAIT_*),
 * 0 for nothing: a message to or from MPI_PROC_NULL. */
static inline int mpidbg_wait_kind(const struct mpidbg_robj *o)
{
    int kind = o->coll_seq                      ? MPIDBG_WAIT_COLL
               : mpidbg_xr_is_recv(o)           ? MPIDBG_WAIT_RECV
               : o->rec->kind == MPIDBG_REQ_SEND ? MPIDBG_WAIT_SEND
                                                : MPIDBG_WAIT_OTHER;
    if ((kind == MPIDBG_WAIT_RECV || kind == MPIDBG_WAIT_SEND) && o->rec->peer == MPI_PROC_NULL)
        return 0;
    return kind;
}

/* requests_any.c: the last request array of MPI_Waitany and MPI_Testany,
 * its lookups and what the completion wrappers derive from them. */
struct mpidbg_anycache {
    const MPI_Request *arr; /* NULL: none */
    int n;
    int first;              /* no entry before it waits for anything */
    uint32_t id;
    uint64_t version;       /* changes with every entry */
    MPI_Request *h;         /* the handles as last seen */
    struct mpidbg_reqref *c;
    uint8_t *kind;          /* what each active entry waits for (mpidbg_wait_kind), 0 nothing */
    uint8_t *recv;          /* an active receive that takes a shadow */
    uint8_t *recheck;       /* not a request the program holds: looked up at every call */
    int nwaits, nrecv;
    uint64_t comm;          /* the receives' communicator */
};
/* mpidbg_any_refs is the cache when it holds arr, with the entries whose
 * handles changed looked up again, else NULL; mpidbg_any_keep makes it
 * hold arr, whose requests the plain path looked up into c, and returns
 * it (NULL: arr is not kept);
 * mpidbg_any_completed completes entry i (arr: after MPI); mpidbg_any_first
 * is the first entry that waits for something (n: none). */
MPIDBG_HIDDEN struct mpidbg_anycache *mpidbg_any_refs(struct mpidbg_cx *cx, int count, const MPI_Request arr[]);
MPIDBG_HIDDEN struct mpidbg_anycache *mpidbg_any_keep(int count, const MPI_Request arr[], const struct mpidbg_reqref *c);
MPIDBG_HIDDEN void mpidbg_any_completed(struct mpidbg_cx *cx, struct mpidbg_anycache *a, int i, const MPI_Request arr[]);
MPIDBG_HIDDEN int mpidbg_any_first(struct mpidbg_anycache *a);

#endif
