/*
 * The origin, compare and result buffers of one-sided operations without a
 * request (MPI_Put, MPI_Get, MPI_Accumulate, ...) as pending buffers
 * (pending.c), from the call until the call that completes the operation
 * at the origin (rma.c's release: a fence, MPI_Win_complete, an unlock or
 * flush of its target, ...). MPI-4.1 §12.3: the origin buffer of an RMA
 * operation must not be updated, and the buffer a get writes not
 * accessed, until the operation completes at the origin; §3.7.2 says the
 * same of a nonblocking receive's buffer. So a call whose buffer overlaps
 * one of them is reported as buffer-overlap before MPI sees it, like two
 * pending nonblocking operations: a second MPI_Get into the same origin
 * bytes, an MPI_Irecv or MPI_Recv into a pending Get's result, an MPI_Send
 * from it, a receive into a pending Put's origin. Two operations that
 * only read a buffer (two Puts, a Put and a Send) do not conflict.
 * Request-based operations (MPI_Rget, ...) are pending through their
 * request (requests.c) already.
 *
 * Each operation gets a request object of its own (struct
 * mpidbg_rma_pend: pending.c names the other operation by its call and
 * site), recycled through the window's free list. At most PEND_MAX per
 * window are pending at once; later ones are not checked (a miss).
 */
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "rma_win.h"

#define PEND_MAX 4096

struct mpidbg_rma_pend {
    struct mpidbg_robj ro;
    struct mpidbg_request rec; /* only its site is read */
    int32_t target;
    int32_t pad;
};

static struct mpidbg_rma_pend *pend_get(struct mpidbg_rma_win *w)
{
    if (w->nfree)
        return w->pfree[--w->nfree];
    return calloc(1, sizeof(struct mpidbg_rma_pend));
}

static void pend_put(struct mpidbg_rma_win *w, struct mpidbg_rma_pend *p)
{
    if (p->ro.seg && p->ro.seg != p->ro.inl)
        free(p->ro.seg);
    p->ro.seg = NULL;
    if (w->nfree < w->pcap && w->pfree)
        w->pfree[w->nfree++] = p;
    else
        free(p);
}

void mpidbg_rma_pending_add(struct mpidbg_cx *cx, struct mpidbg_rma_win *w, const struct mpidbg_rma *a)
{
    if ((mpidbg_disabled & (1u << MPIDBG_CAT_OVERLAP)) || w->npend >= PEND_MAX)
        return;
    if (w->npend == w->pcap) {
        int ncap = w->pcap ? 2 * w->pcap : 16;
        struct mpidbg_rma_pend **n = realloc(w->pend, sizeof *n * (size_t)ncap);
        if (!n)
            return;
        w->pend = n;
        struct mpidbg_rma_pend **f = realloc(w->pfree, sizeof *f * (size_t)ncap);
        if (!f)
            return;
        w->pfree = f;
        w->pcap = ncap;
    }
    mpidbg_sides_ready(cx);
    /* MPI_NO_OP: MPI ignores the origin buffer (MPI-4.1 §12.3.4) */
    int skip_origin = a->op == MPI_NO_OP && mpidbg_rma_class(a->call) >= MPIDBG_RMA_CLS_ACC;
    int nseg = 0;
    for (int i = 0; i < cx->nside; i++)
        if (cx->sides[i].mode == MPIDBG_WR || !skip_origin)
            for (int j = 0; j < cx->sides[i].nseg; j++)
                nseg += cx->sides[i].seg[j].hi > cx->sides[i].seg[j].lo;
    if (!nseg)
        return;
    struct mpidbg_rma_pend *p = pend_get(w);
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->ro.seg = nseg <= (int)(sizeof p->ro.inl / sizeof p->ro.inl[0]) ? p->ro.inl : malloc(sizeof *p->ro.seg * (size_t)nseg);
    if (!p->ro.seg) {
        free(p);
        return;
    }
    for (int i = 0; i < cx->nside; i++)
        if (cx->sides[i].mode == MPIDBG_WR || !skip_origin)
            for (int j = 0; j < cx->sides[i].nseg; j++)
                if (cx->sides[i].seg[j].hi > cx->sides[i].seg[j].lo)
                    p->ro.seg[p->ro.nseg++] = cx->sides[i].seg[j];
    p->ro.segcap = p->ro.nseg;
    p->ro.call = a->call;
    p->ro.active = 1;
    p->ro.live = 1;
    p->ro.rec = &p->rec;
    p->rec.site = cx->site;
    p->rec.call = a->call;
    p->target = a->target_rank;
    w->pend[w->npend++] = p;
    mpidbg_wlock();
    mpidbg_pending_add(&p->ro);
    mpidbg_wunlock();
}

void mpidbg_rma_pending_release(struct mpidbg_rma_win *w, int target)
{
    if (!w->npend)
        return;
    int k = 0;
    mpidbg_wlock();
    for (int i = 0; i < w->npend; i++) {
        struct mpidbg_rma_pend *p = w->pend[i];
        if (target >= 0 && p->target != target) {
            w->pend[k++] = p;
            continue;
        }
        mpidbg_pending_remove(&p->ro); /* the pending lists keep no pointer to it */
        pend_put(w, p);
    }
    mpidbg_pending_flush();
    mpidbg_wunlock();
    w->npend = k;
}

void mpidbg_rma_pending_drop(struct mpidbg_rma_win *w)
{
    mpidbg_rma_pending_release(w, -1);
    for (int i = 0; i < w->nfree; i++)
        free(w->pfree[i]);
    free(w->pend);
    free(w->pfree);
    w->pend = w->pfree = NULL;
    w->npend = w->nfree = w->pcap = 0;
}
