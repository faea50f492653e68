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

#endif
