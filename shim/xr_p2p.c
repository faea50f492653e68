/*
 * Point-to-point across ranks: the shadow message of every send, and at
 * every completed receive the type-signature match, the message-race
 * check and the counts for lost messages; the blocked-call record of
 * the calls that can block.
 *
 * Pre contract (mpidbg_xp_pre): under --buffering=zero a standard-mode
 * send becomes synchronous; a blocking receive swaps in MPI_ERRORS_RETURN
 * on the communicator so that a truncation is reported before MPI's
 * error handler runs; a call that can block writes the blocked-call
 * record; a send's description goes to the node ring, and a blocking
 * send-receive whose peer takes shadow messages sends its send part's
 * shadow now (its call returns only after its receive part).
 * Post contract (mpidbg_xp_post): the record is cleared; a send MPI
 * accepted, to a rank of a shadowed communicator, sends its shadow
 * (unless it went before)
 * message (nonblocking: the shim never waits for it), counts it and
 * ticks the logical clock; a receive that took a message receives that
 * message's shadow (source and tag from the status) and checks it; the
 * program's error handler is restored and, when the call failed, called
 * as MPI would have.
 *
 * Type matching is exact: the shadow carries the sender's type signature
 * in regular form (datatype.Sig, a few bytes even for a million-element
 * struct array); equal bytes and a count no larger than the receive's are
 * a match at once, anything else goes to the Go model, which compares
 * element by element (MPI-4.1 §3.3.1, §5.2 for MPI_PACKED).
 *
 * Message races use a scalar (Lamport) clock: a message whose send clock
 * is not above a wildcard receive's clock was not sent after that receive
 * completed, so it could have matched it (docs/DESIGN-SCALE.md: what
 * scalar clocks miss); xr_race.c decides what the other order does.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shim.h"

#define XR_MAGIC 0x3144584du /* "MXD1" */
#define XR_MAX MPIDBG_XR_MAX
#define XR_KNOWN 1u          /* the signature follows */
#define XR_SWAP 2u           /* another thread's send, one just like it, may have this shadow's place (xr_threads.c) */
#define XR_AMBIG 4u          /* another thread's send, not alike, may have it */
#define XR_UNSURE 8u         /* the sender's clock may be below its past (mpidbg_xr_unsure) */

struct xr_hdr {
    uint32_t magic;
    int32_t call;     /* the send's call id */
    uint64_t clock;   /* the sender's logical clock at the send */
    int64_t count;
    uint64_t site_off;
    uint32_t site_mod;
    uint32_t flags;
    uint32_t siglen, exprlen;
    int32_t world;    /* the sender's rank in MPI_COMM_WORLD */
    int32_t tag;
};

uint64_t mpidbg_xr_clock; /* Lamport clock: ticks at each send and receive, max-merged at collectives */
/* A receive that may have pulled another thread's shadow merged that
 * shadow's clock, maybe below its own message's: this rank's clock may
 * then be below an event it follows, and so may the clock of whoever it
 * sends to. Such shadows say so (XR_UNSURE), take no part in the race
 * check and pass it on, until a collective of every rank raises every
 * clock above every earlier one (xr_coll.c). A send mixed up with
 * another is harmless here: their windows overlap, so the other's shadow
 * was posted after everything that came before this send. */
int mpidbg_xr_unsure;
static int world_size;

int mpidbg_world_size(void)
{
    return world_size;
}

/* With MPI_THREAD_MULTIPLE several threads send and receive at once: the
 * queue of shadows in flight, the clock, the counters, the race records
 * and the threads' windows (xr_threads.c) are shared (mpidbg_mt: the
 * lock is taken only then). */
pthread_mutex_t mpidbg_xr_mu = PTHREAD_MUTEX_INITIALIZER;
#define XR_LOCK()                    \
    do {                             \
        if (mpidbg_mt)               \
            pthread_mutex_lock(&mpidbg_xr_mu); \
    } while (0)
#define XR_UNLOCK()                    \
    do {                               \
        if (mpidbg_mt)                 \
            pthread_mutex_unlock(&mpidbg_xr_mu); \
    } while (0)
static int64_t *sent_to, *recvd_from; /* messages per world rank */

/* mpidbg_xr_clock_merge moves the clock above c and one step on, and
 * returns it: what a synchronisation does to a Lamport clock. Threads
 * share the clock; the lock keeps it from going back. */
uint64_t mpidbg_xr_clock_merge(uint64_t c)
{
    XR_LOCK();
    if (c > mpidbg_xr_clock)
        mpidbg_xr_clock = c;
    uint64_t v = ++mpidbg_xr_clock;
    XR_UNLOCK();
    mpidbg_tc_import(c);
    return v;
}

/* mpidbg_xr_clock_tick moves the clock one step on and returns it: a
 * local event before a send, which receives nothing (the calling thread
 * learns nothing from the other threads). */
uint64_t mpidbg_xr_clock_tick(void)
{
    XR_LOCK();
    uint64_t v = ++mpidbg_xr_clock;
    XR_UNLOCK();
    return v;
}

/* ---- outgoing shadows: sent with MPI_Isend, reaped in order ---- */
struct out {
    MPI_Request r;
    void *buf;
};
static struct out *outq;
static unsigned out_head, out_tail, out_cap; /* ring: [head, tail) */

static void reap(int all)
{
    while (out_head != out_tail) {
        struct out *o = &outq[out_head % out_cap];
        int done = 0;
        if (PMPI_Test(&o->r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            done = 1; /* lost: the buffer may still be read; keep it */
        else if (done)
            free(o->buf);
        if (!done && !all)
            return;
        if (!done) /* at finalize: a shadow nobody received (a lost message) */
            PMPI_Request_free(&o->r);
        out_head++;
    }
}

static void enqueue(MPI_Request r, void *buf)
{
    if (out_tail - out_head == out_cap) {
        unsigned ncap = out_cap ? out_cap * 2 : 64;
        struct out *n = malloc(sizeof *n * ncap);
        if (!n) {
            PMPI_Request_free(&r); /* completes anyway; the buffer leaks */
            return;
        }
        for (unsigned i = 0; i < out_tail - out_head; i++)
            n[i] = outq[(out_head + i) % out_cap];
        out_tail -= out_head;
        out_head = 0;
        free(outq);
        outq = n;
        out_cap = ncap;
    }
    outq[out_tail++ % out_cap] = (struct out){r, buf};
}

/* ---- a datatype's description, made once by the Go model ---- */

/* desc_lens: the lengths in the header in front of a description's body
 * (what tobj_blob returns) */
static void desc_lens(const uint8_t *body, uint32_t *siglen, uint32_t *exprlen)
{
    memcpy(siglen, body - 8, 4);
    memcpy(exprlen, body - 4, 4);
}

static const uint8_t *tobj_blob(struct mpidbg_tobj *o, uint32_t *siglen, uint32_t *exprlen)
{
    int32_t state = o ? __atomic_load_n(&o->xr_state, __ATOMIC_ACQUIRE) : -1;
    if (state < 0)
        return NULL;
    if (state == 0) {
        int32_t len = 0;
        uint8_t *b = mpidbg_go_type_blob(o->handle, &len);
        if (!b || len < 8) {
            free(b);
            o->xr_state = -1;
            return NULL;
        }
        o->xr_blob = b; /* a replaced blob is not freed: another thread may read it */
        o->xr_len = len;
        __atomic_store_n(&o->xr_state, 1, __ATOMIC_RELEASE); /* after the blob: threads read it without a lock */
    }
    desc_lens(o->xr_blob + 8, siglen, exprlen);
    return o->xr_blob + 8;
}

static const uint8_t *type_blob(MPI_Datatype t, uint32_t *siglen, uint32_t *exprlen)
{
    return tobj_blob(mpidbg_hmap_get(&mpidbg_types, MPIDBG_H(t)), siglen, exprlen);
}

/* send_clock stamps a send, under mpidbg_xr_mu when threads share the
 * clock. While windows whose passive epochs are compared exist, the send
 * is an event of its own: the sender goes on above the message's clock,
 * as the receiver does (max + 1). Without it what the sender does right
 * after the send looked ordered before everything the receiver does
 * after the receive (docs/rma-races.md, "Passive target: the clock"). A
 * local tick keeps the clock a Lamport clock: nothing a chain of
 * messages orders can look concurrent. */
static uint64_t send_clock(void)
{
    uint64_t c = ++mpidbg_xr_clock;
    mpidbg_tc_publish(c);
    if (mpidbg_rma_ticking)
        ++mpidbg_xr_clock;
    return c;
}

/* count_sent counts n messages MPI accepted (-1: one it did not), for
 * the lost-message check */
static void count_sent(struct mpidbg_cobj *co, int dest, int n)
{
    int32_t w = mpidbg_xr_world_of(co, dest);
    if (w >= 0 && w < world_size && sent_to)
        sent_to[w] += n;
}

/* shadow_send sends the shadow of a send MPI accepted. Under
 * MPI_THREAD_MULTIPLE the lock is held from the send's window's end to
 * the shadow's posting (PMPI_Isend does not block), so that no other
 * send of the bucket slips between them (xr_threads.c). early: the send
 * is still to come (a send-receive's, mpidbg_xp_pre); its window stays
 * open until the call returns, so that other threads' sends that begin
 * meanwhile are flagged, and its shadow says what overlapped it so far
 * (mpidbg_xs_now_locked). */
static void shadow_send(struct mpidbg_cobj *co, int32_t call, uint64_t site, int dest, int tag, int64_t count,
                        MPI_Datatype t, struct mpidbg_xsend *xs, int early)
{
    if (dest == MPI_PROC_NULL || dest < 0) {
        mpidbg_xs_abort(xs);
        return;
    }
    uint32_t siglen = 0, exprlen = 0;
    const uint8_t *blob = type_blob(t, &siglen, &exprlen);
    struct xr_hdr h = {XR_MAGIC, call, 0, count, 0, 0, 0, 0, 0, mpidbg_world_rank, tag};
    mpidbg_site_code(site, &h.site_off, &h.site_mod);
    if (blob && sizeof h + siglen <= XR_MAX) {
        h.flags = XR_KNOWN;
        h.siglen = siglen;
        h.exprlen = sizeof h + siglen + exprlen <= XR_MAX ? exprlen : 0;
    }
    size_t n = sizeof h + h.siglen + h.exprlen;
    uint8_t *buf = malloc(n);
    if (!buf) {
        mpidbg_xs_abort(xs);
        return;
    }
    XR_LOCK();
    switch (early ? mpidbg_xs_now_locked(xs) : mpidbg_xs_end_locked(xs)) {
    case MPIDBG_XR_SWAP:
        h.flags |= XR_SWAP;
        break;
    case MPIDBG_XR_AMBIG:
        h.flags |= XR_AMBIG;
        break;
    }
    if (mpidbg_xr_unsure)
        h.flags |= XR_UNSURE;
    h.clock = send_clock();
    memcpy(buf, &h, sizeof h);
    if (h.siglen)
        memcpy(buf + sizeof h, blob, h.siglen + h.exprlen);
    MPI_Request r;
    if (PMPI_Isend(buf, (int)n, MPI_BYTE, dest, tag, co->xr, &r) != MPI_SUCCESS) {
        XR_UNLOCK();
        free(buf);
        return;
    }
    count_sent(co, dest, 1);
    enqueue(r, buf);
    if (out_tail - out_head > 16)
        reap(0);
    XR_UNLOCK();
}

/* mpidbg_xr_type_blob is a datatype's signature (and constructor
 * expression after it) for the race check (xr_race.c). */
const uint8_t *mpidbg_xr_type_blob(MPI_Datatype t, uint32_t *siglen, uint32_t *exprlen)
{
    return type_blob(t, siglen, exprlen);
}

/* ---- on one host: the node ring instead of a shadow message ---- */

/* ring_peer is the host index of a peer whose messages are described in
 * the node rings, -1 when they take shadow messages: another host, an
 * intercommunicator, threads (mpidbg_node_p2p). Both ends decide alike. */
static int ring_peer(struct mpidbg_cobj *co, int peer)
{
    if (!mpidbg_node_p2p || !co->gid || co->inter || peer < 0)
        return -1;
    return mpidbg_node_index(mpidbg_xr_world_of(co, peer));
}

/* node_blob is a datatype's description in this rank's node arena,
 * copied there once: offset + 1; 0 when the model does not know the
 * type; UINT32_MAX when the arena has no room for it */
static uint32_t node_blob(MPI_Datatype t, uint32_t *siglen, uint32_t *exprlen)
{
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, MPIDBG_H(t));
    const uint8_t *blob = tobj_blob(o, siglen, exprlen);
    if (!blob)
        return 0;
    if (!o->xr_node) {
        uint32_t off = mpidbg_node_put(blob, *siglen + *exprlen);
        o->xr_node = off ? off : UINT32_MAX;
    }
    return o->xr_node;
}

/* ring_send describes a send in the ring to its destination before MPI
 * sees the send (a receive may complete before the send returns): the
 * slot, or NULL when the send takes a shadow message after it. */
static struct mpidbg_rslot *ring_send(struct mpidbg_cobj *co, int32_t call, uint64_t site, int dest, int tag, int64_t count,
                                     MPI_Datatype t)
{
    int d = ring_peer(co, dest);
    if (d < 0)
        return NULL;
    uint32_t siglen = 0, exprlen = 0;
    uint32_t blob = node_blob(t, &siglen, &exprlen);
    if (blob == UINT32_MAX) {
        /* a signature the arena has no room for: the shadow message
         * carries it, for this message and every later one of the pair */
        mpidbg_ring_fall_back(d);
        return NULL;
    }
    struct mpidbg_rslot *s = mpidbg_ring_claim(d);
    if (!s)
        return NULL;
    struct mpidbg_rdesc *m = &s->d;
    m->gid = co->gid;
    m->tag = tag;
    m->call = (int16_t)call;
    m->count = count;
    mpidbg_site_code(site, &m->site_off, &m->site_mod);
    m->blob = blob;
    m->siglen = blob ? siglen : 0;
    m->exprlen = blob ? exprlen : 0;
    m->flags = (uint16_t)((blob ? XR_KNOWN : 0) | (mpidbg_xr_unsure ? XR_UNSURE : 0));
    m->clock = send_clock(); /* no threads: no lock (mpidbg_node_p2p) */
    mpidbg_ring_publish(d, s);
    return s;
}

/* desc_hdr is a ring description as a shadow message's header, of a
 * message from world rank w */
static struct xr_hdr desc_hdr(const struct mpidbg_rdesc *m, int32_t w)
{
    return (struct xr_hdr){XR_MAGIC, m->call, m->clock, m->count, m->site_off, m->site_mod, m->flags, m->siglen, m->exprlen,
                           w, m->tag};
}

/* ring_recv takes a received message's description from the ring of
 * its source into h and body: 1 taken, 0 it is on the shadow
 * communicator, -1 there is none. */
static int ring_recv(struct mpidbg_cobj *co, int src, int tag, struct xr_hdr *h, const uint8_t **body)
{
    int s = ring_peer(co, src);
    if (s < 0)
        return 0;
    struct mpidbg_rdesc m;
    int r = mpidbg_ring_take(s, co->gid, tag, &m);
    if (r <= 0)
        return r;
    struct xr_hdr x = desc_hdr(&m, mpidbg_node_world(s));
    *body = (m.flags & XR_KNOWN) ? mpidbg_node_at(s, m.blob, m.siglen + m.exprlen) : NULL;
    if (!*body) {
        x.flags &= ~XR_KNOWN;
        x.siglen = x.exprlen = 0;
    }
    *h = x;
    return 1;
}

/* ---- the receive side ---- */
/* type_check compares a message's signature with its receive's: rtype's,
 * or, when the program freed the type and MPI gave its handle to another
 * one meanwhile, the description kept when the receive was posted
 * (posted: the request's snapshot, NULL for a blocking receive; its
 * rdesc NULL for a predefined type or one the model does not know). */
static void type_check(const struct xr_hdr *h, const uint8_t *body, MPI_Datatype rtype, const struct mpidbg_xr_rsnap *posted,
                       int64_t rcount, uint64_t site, int call)
{
    if (!(h->flags & XR_KNOWN) || !mpidbg_enabled(MPIDBG_F_TYPE_MISMATCH))
        return;
    uint32_t siglen = 0, exprlen = 0;
    const uint8_t *mine = type_blob(rtype, &siglen, &exprlen);
    /* a handle that names another type by now has another description */
    int freed = posted && posted->rdesc && mine != posted->rdesc;
    if (freed) {
        mine = posted->rdesc;
        desc_lens(mine, &siglen, &exprlen);
    }
    if (!mine)
        return;
    if (siglen == h->siglen && memcmp(mine, body, siglen) == 0 && h->count <= rcount)
        return; /* the same signature, a prefix of the receive: the common case */
    struct mpidbg_xrmatch *m = calloc(1, sizeof *m);
    if (!m)
        return;
    m->sig = body;
    m->siglen = (int32_t)h->siglen;
    m->expr = body + h->siglen;
    m->exprlen = (int32_t)h->exprlen;
    m->scount = h->count;
    m->srank = h->world;
    m->scall = h->call;
    m->rtype = MPIDBG_H(rtype);
    if (freed) {
        m->rsig = mine;
        m->rsiglen = (int32_t)siglen;
        m->rexpr = mine + siglen;
        m->rexprlen = (int32_t)exprlen;
    }
    m->rcount = rcount;
    m->rcall = call;
    m->rsite = site;
    m->smod = h->site_mod;
    m->soff = h->site_off;
    if (mpidbg_go_xr_match(m)) {
        struct mpidbg_cx cx;
        memset(&cx, 0, sizeof cx);
        cx.call = call;
        cx.site = site;
        struct mpidbg_ev ev;
        mpidbg_ev_init(&ev, &cx, m->fid_truncated ? MPIDBG_F_MESSAGE_TRUNCATED : MPIDBG_F_TYPE_MISMATCH, "datatype");
        ev.text = m->msg; /* the engine wrote it (checks.TypeMatch) */
        ev.path = m->path;
        ev.handle = freed ? 0 : MPIDBG_H(rtype);
        ev.nremote = 1;
        ev.remote_rank[0] = h->world;
        ev.remote_mod[0] = h->site_mod;
        ev.remote_off[0] = h->site_off;
        ev.remote_call[0] = h->call;
        mpidbg_depth++;
        mpidbg_report(&cx, &ev);
        mpidbg_depth--;
    }
    free(m);
}

/* pull takes the shadow of the next message from src with tag into g;
 * without wait, only when it has come: 0 when it is still on its way on
 * the shadow communicator. */
static int pull(struct mpidbg_cobj *co, MPI_Comm xr, int src, int tag, struct mpidbg_xr_got *g, int wait)
{
    struct xr_hdr h = {0};
    const uint8_t *body = NULL;
    g->pulled = g->valid = 0;
    g->len = 0;
    int ring = ring_recv(co, src, tag, &h, &body);
    if (ring > 0) {
        g->pulled = g->valid = 1;
        if (sizeof h + (uint64_t)h.siglen + h.exprlen > sizeof g->buf) {
            h.flags &= ~XR_KNOWN;
            h.siglen = h.exprlen = 0;
        }
        memcpy(g->buf, &h, sizeof h);
        if (body)
            memcpy((uint8_t *)g->buf + sizeof h, body, (size_t)h.siglen + h.exprlen);
        g->len = sizeof h + (uint64_t)h.siglen + h.exprlen;
    } else if (ring == 0) {
        MPI_Status st;
        int n = 0, flag = 1;
        if (!wait && (PMPI_Iprobe(src, tag, xr, &flag, &st) != MPI_SUCCESS || !flag))
            return 0;
        g->pulled = PMPI_Recv(g->buf, XR_MAX, MPI_BYTE, src, tag, xr, &st) == MPI_SUCCESS;
        if (g->pulled) {
            PMPI_Get_count(&st, MPI_BYTE, &n);
            if (n >= (int)sizeof h) {
                memcpy(&h, g->buf, sizeof h);
                g->valid = h.magic == XR_MAGIC && sizeof h + (uint64_t)h.siglen + h.exprlen <= (uint64_t)n;
                g->len = (uint64_t)n;
            }
        }
    }
    return 1;
}

void mpidbg_xr_pull(struct mpidbg_cobj *co, MPI_Comm xr, int src, int tag, struct mpidbg_xr_got *g)
{
    pull(co, xr, src, tag, g, 1);
}

/* A matched probe takes its message out of matching (MPI-4.1 §3.8.2):
 * the receives that complete before its MPI_Mrecv take the messages
 * after it, and the program may receive the messages it claimed in any
 * order. So the probe takes its message's shadow, the next of its source
 * and tag after those of the receives posted before it (xr_order.c), and
 * the record of its message handle keeps it for MPI_Mrecv.
 *
 * Not waiting for it: a synchronous send completes only once MPI_Mrecv
 * starts, and a shadow message follows its send's completion. A shadow
 * still on its way is left to the receive (the claim is deferred), and
 * so is every later probe's while such a claim is outstanding: a later
 * probe would take the earlier one's shadow. Under MPI_THREAD_MULTIPLE
 * the threads' windows order the shadows (xr_threads.c), and the receive
 * takes it too. */
static int claims_deferred; /* outstanding: their messages not received yet */

void mpidbg_xr_kept_free(struct mpidbg_xr_got *g)
{
    if (g && g->deferred)
        claims_deferred--;
    free(g);
}

static struct mpidbg_xr_got *claim(struct mpidbg_xp *xp)
{
    int src = xp->status->MPI_SOURCE, tag = xp->status->MPI_TAG;
    if (mpidbg_mt || !xp->co || *xp->message == MPI_MESSAGE_NULL || *xp->message == MPI_MESSAGE_NO_PROC || src < 0 ||
        tag < 0)
        return NULL;
    struct mpidbg_xr_got *g = malloc(sizeof *g);
    if (!g)
        return NULL;
    g->deferred = 0;
    if (!claims_deferred) {
        mpidbg_xr_order(xp->co, xp->co->xr, NULL, 0, mpidbg_next_post(), src, tag, g); /* sets unsure */
        if (pull(xp->co, xp->co->xr, src, tag, g, 0))
            return g;
    }
    g->pulled = g->valid = g->unsure = 0;
    g->deferred = 1;
    claims_deferred++;
    return g;
}

/* shadow_recv takes the shadow of the message a receive on co took and
 * checks it. src and tag come from the receive's status; o and serial
 * name its request (NULL for a blocking receive), post when it was
 * posted. */
static void shadow_recv(struct mpidbg_cobj *co, MPI_Comm xr, int src, int tag, MPI_Datatype rtype, int64_t rcount,
                        int rsource, int rtag, uint64_t site, int call, int32_t rwin, uint64_t post, int blind,
                        const struct mpidbg_robj *o, uint32_t serial, const struct mpidbg_xr_rsnap *posted,
                        const struct mpidbg_xr_got *kept)
{
    if (src < 0 || src == MPI_PROC_NULL || tag < 0) {
        mpidbg_xrw_end(rwin, -1, 0);
        return;
    }
    struct mpidbg_xr_got own;
    const struct mpidbg_xr_got *gp = kept;
    if (!gp || gp->deferred) {
        if (!mpidbg_xr_order(co, xr, o, serial, post, src, tag, &own))
            mpidbg_xr_pull(co, xr, src, tag, &own);
        gp = &own; /* a deferred claim's owner frees it (mpidbg_xr_kept_free) */
    }
    struct xr_hdr h = {0};
    memcpy(&h, gp->buf, sizeof h);
    const uint8_t *body = (const uint8_t *)gp->buf + sizeof h;
    int pulled = gp->pulled, valid = gp->valid;
    /* The window ends with the pull, under the lock that also covers the
     * race records: a receive of another thread that ends later sees
     * this one both ended and noted. */
    XR_LOCK();
    int rv = mpidbg_xrw_end_locked(rwin, pulled ? src : -1, tag);
    if (!valid) {
        XR_UNLOCK();
        return;
    }
    /* the signatures compare when both sides are right up to alike ones;
     * the race check wants the message's own clock */
    int types_ok = rv != MPIDBG_XR_AMBIG && !(h.flags & XR_AMBIG) && !gp->unsure;
    int clock_ok = rv == MPIDBG_XR_EXACT && !(h.flags & (XR_SWAP | XR_AMBIG | XR_UNSURE)) && !gp->unsure;
    if (rv != MPIDBG_XR_EXACT || (h.flags & XR_UNSURE))
        mpidbg_xr_unsure = 1;
    if (h.clock > mpidbg_xr_clock)
        mpidbg_xr_clock = h.clock;
    mpidbg_xr_clock++;
    /* a shadow that may be another thread's: its clock may be below the
     * message's, and the process's is not */
    mpidbg_tc_import(clock_ok ? h.clock : mpidbg_xr_clock);
    int32_t w = mpidbg_xr_world_of(co, src);
    if (w >= 0 && w < world_size && recvd_from)
        recvd_from[w]++;
    /* a wildcard receive is noted with this rank's clock and the
     * message's source, which hold whatever shadow it pulled (the send's
     * place may be that of another message of the same source) */
    if (mpidbg_enabled(MPIDBG_F_MESSAGE_RACE) || mpidbg_enabled(MPIDBG_F_MESSAGE_RACE_INFO)) {
        struct mpidbg_xr_msg m = {src, h.world, h.tag, h.call, h.clock, h.site_off, h.site_mod, 0, h.count, NULL, clock_ok, 0};
        if ((h.flags & XR_KNOWN) && types_ok) {
            m.sig = body;
            m.siglen = h.siglen;
        }
        struct mpidbg_xr_recv r = {rsource, rtag, call, blind, rtype, rcount, site, post};
        mpidbg_xr_race(co, &m, &r);
    }
    XR_UNLOCK();
    if (types_ok)
        type_check(&h, body, rtype, posted, rcount, site, call);
}

/* ---- error handlers: a truncation is reported before MPI's handler ---- */
void mpidbg_eh_swap(struct mpidbg_ehswap *sw, MPI_Comm c)
{
    for (int i = 0; i < sw->n; i++)
        if (sw->comm[i] == c)
            return;
    MPI_Errhandler eh;
    if (sw->n == MPIDBG_EHSWAP_MAX || PMPI_Comm_get_errhandler(c, &eh) != MPI_SUCCESS)
        return;
    if (eh == MPI_ERRORS_RETURN) {
        PMPI_Errhandler_free(&eh);
        return;
    }
    PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    sw->comm[sw->n] = c;
    sw->eh[sw->n++] = eh;
}

/* mpidbg_eh_restore gives the communicators their handlers back and,
 * when the call failed, calls the first one as MPI would have, after
 * telling mpidbg when that handler ends the job after an error the call
 * reported (fatal.c). */
int mpidbg_eh_restore(struct mpidbg_cx *cx, struct mpidbg_ehswap *sw, int rc)
{
    if (sw->n && rc != MPI_SUCCESS)
        mpidbg_fatal_handler(cx, sw->eh[0]);
    for (int i = 0; i < sw->n; i++) {
        PMPI_Comm_set_errhandler(sw->comm[i], sw->eh[i]);
        PMPI_Errhandler_free(&sw->eh[i]);
    }
    if (sw->n && rc != MPI_SUCCESS)
        PMPI_Comm_call_errhandler(sw->comm[0], rc);
    if (sw->n)
        mpidbg_fatal_forget();
    sw->n = 0;
    return rc;
}

/* mt_windows opens the call's windows under MPI_THREAD_MULTIPLE
 * (xr_threads.c): a send's until its shadow is posted, a receive's until
 * its shadow is pulled (a nonblocking one's request carries it; a
 * matched probe's message handle carries it to MPI_Mrecv). */
static void mt_windows(struct mpidbg_cx *cx, struct mpidbg_xp *xp, struct mpidbg_cobj *co)
{
    if (xp->send && !xp->persistent && xp->dest != MPI_PROC_NULL)
        mpidbg_xs_begin(&xp->xs, co->handle, xp->dest, xp->stag,
                        mpidbg_xr_key(MPIDBG_H(xp->stype), xp->scount, cx->site, cx->call));
    /* a matched probe's receive names its type and count only at
     * MPI_Mrecv: alike to no other */
    if (xp->recv && !xp->persistent && !xp->message && xp->source != MPI_PROC_NULL)
        xp->rwin = mpidbg_xrw_begin(co->handle, xp->source, xp->rtag,
                                    mpidbg_xr_key(MPIDBG_H(xp->rtype), xp->rcount, cx->site, cx->call));
    else if (xp->probe && xp->message && xp->source != MPI_PROC_NULL)
        xp->rwin = mpidbg_xrw_begin(co->handle, xp->source, xp->rtag, mpidbg_xr_unique_key());
    if (xp->recv && xp->nonblocking)
        cx->xr_rwin = xp->rwin;
}

void mpidbg_xp_pre(struct mpidbg_cx *cx, struct mpidbg_xp *xp)
{
    if (!mpidbg_xr_on)
        return;
    if (xp->message && !xp->probe) { /* MPI_Mrecv, MPI_Imrecv: the communicator the probe matched on */
        xp->comm = mpidbg_xr_message_comm(*xp->message, &xp->rwin, &xp->kept);
        if (xp->comm != MPI_COMM_NULL && !cx->comm)
            cx->comm = MPIDBG_H(xp->comm);
        if (*xp->message != MPI_MESSAGE_NO_PROC)
            cx->peer = MPI_ANY_SOURCE; /* the probe knew it; the request's status will say */
    }
    struct mpidbg_cobj *co = xp->co = mpidbg_xr_comm(cx, xp->comm);
    if (!co) {
        mpidbg_xrw_end(xp->rwin, -1, 0);
        xp->rwin = 0;
        mpidbg_xr_kept_free(xp->kept);
        xp->kept = NULL;
        return;
    }
    if (xp->message && !xp->probe && !cx->co)
        cx->co = co; /* MPI_Imrecv's request records the shadow (mpidbg_req_new) */
    if (xp->message && !xp->probe && xp->nonblocking) {
        cx->xr_kept = xp->kept; /* its request's, once MPI made it */
        xp->kept = NULL;
    }
    if (mpidbg_mt)
        mt_windows(cx, xp, co);
    if (xp->send && mpidbg_xr_zero && xp->dest != MPI_PROC_NULL)
        xp->sync = 1;
    if (xp->send && !xp->persistent && xp->dest != MPI_PROC_NULL)
        xp->slot = ring_send(co, cx->call, cx->site, xp->dest, xp->stag, xp->scount, xp->stype);
    /* A send-receive returns once its receive part completed, and the
     * two parts run as if concurrently (MPI-4.1 §3.10): its peer may
     * receive the send part and only then send what the receive part
     * waits for (a request and its reply). A shadow sent after the call
     * would come after the peer's receive waited for it, and neither
     * would go on: it goes before MPI sees the call. */
    if (xp->send && xp->recv && !xp->nonblocking && !xp->persistent && !xp->slot && xp->dest != MPI_PROC_NULL) {
        shadow_send(co, cx->call, cx->site, xp->dest, xp->stag, xp->scount, xp->stype, &xp->xs, 1);
        xp->shadowed = 1;
    }
    if (xp->recv && !xp->nonblocking && !xp->persistent) {
        mpidbg_eh_swap(&xp->eh, xp->comm);
        xp->post = mpidbg_next_post();
    }
    if (xp->nonblocking || xp->persistent)
        return;
    /* the calls that can block: sends (synchronous, or not buffered),
     * receives, probes */
    int waits = (xp->recv && (xp->source != MPI_PROC_NULL || xp->message)) || (xp->probe && xp->source != MPI_PROC_NULL) ||
                (xp->send && xp->dest != MPI_PROC_NULL);
    if (!waits)
        return;
    mpidbg_blocked_begin(cx, MPIDBG_WAIT_AND);
    if (xp->send && xp->dest != MPI_PROC_NULL) {
        mpidbg_blocked_wait(MPIDBG_WAIT_SEND, xp->dest, xp->stag, co, 0, cx->call, 0);
        mpidbg_blocked_slot(xp->slot);
    }
    if ((xp->recv || xp->probe) && xp->source != MPI_PROC_NULL)
        mpidbg_blocked_wait(MPIDBG_WAIT_RECV, xp->message ? -1 : xp->source == MPI_ANY_SOURCE ? -1 : xp->source,
                            xp->rtag, co, 0, cx->call, 0);
    mpidbg_blocked_publish();
    cx->xr_blocked = 1;
}

int mpidbg_xp_post(struct mpidbg_cx *cx, struct mpidbg_xp *xp, int rc)
{
    if (cx->xr_blocked) {
        mpidbg_blocked_end();
        cx->xr_blocked = 0;
    }
    /* a wildcard probe the program saw the status of: a later receive
     * may take its source from it (xr_race.c, STARVED) */
    if (xp->probe && xp->co && rc == MPI_SUCCESS && xp->source == MPI_ANY_SOURCE && !xp->status_ignored &&
        (!xp->flag || *xp->flag) && (mpidbg_enabled(MPIDBG_F_MESSAGE_RACE) || mpidbg_enabled(MPIDBG_F_MESSAGE_RACE_INFO))) {
        XR_LOCK();
        mpidbg_xr_race_probed(xp->co);
        XR_UNLOCK();
    }
    if (xp->probe && xp->message) {
        if (rc == MPI_SUCCESS)
            mpidbg_xr_message(*xp->message, xp->comm, xp->rwin, claim(xp)); /* MPI_Mprobe, MPI_Improbe */
        else
            mpidbg_xrw_end(xp->rwin, -1, 0);
        return rc;
    }
    if (cx->xr_kept) { /* MPI_Imrecv's shadow, when MPI made no request to take it */
        mpidbg_xr_kept_free(cx->xr_kept);
        cx->xr_kept = NULL;
    }
    struct mpidbg_cobj *co = xp->co;
    if (!co)
        return rc;
    /* the shadow follows a send MPI accepted: a rejected send sends
     * nothing, and the receive waits for the shadow only after its own
     * message arrived, which this send's return does not depend on; a
     * truncation reported by a send-receive is its receive's, and the
     * message it sent is on its way */
    int sent = rc == MPI_SUCCESS || (xp->recv && mpidbg_xr_truncated(rc));
    if (xp->shadowed) {
        mpidbg_xs_abort(&xp->xs); /* its window, open until the call returned */
        if (!sent) { /* a shadow without its message: not counted as sent */
            XR_LOCK();
            count_sent(co, xp->dest, -1);
            XR_UNLOCK();
        }
    } else if (xp->send && !xp->persistent && sent && xp->slot) {
        count_sent(co, xp->dest, 1);
    } else if (xp->send && !xp->persistent && sent) {
        shadow_send(co, cx->call, cx->site, xp->dest, xp->stag, xp->scount, xp->stype, &xp->xs, 0);
    } else {
        if (xp->slot)
            mpidbg_ring_void(xp->slot);
        mpidbg_xs_abort(&xp->xs);
    }
    if (xp->recv && !xp->nonblocking && !xp->persistent && xp->status &&
        (rc == MPI_SUCCESS || mpidbg_xr_truncated(rc)))
        shadow_recv(co, co->xr, xp->status->MPI_SOURCE, xp->status->MPI_TAG, xp->rtype, xp->rcount,
                    xp->message ? MPI_ANY_SOURCE - 1 : xp->source, xp->rtag, cx->site, cx->call, xp->rwin, xp->post,
                    xp->status_ignored, NULL, 0, NULL, xp->kept);
    else if (xp->rwin && (!xp->nonblocking || rc != MPI_SUCCESS))
        mpidbg_xrw_end(xp->rwin, -1, 0); /* no message, or no request to carry the window */
    if (xp->kept) {
        mpidbg_xr_kept_free(xp->kept);
        xp->kept = NULL;
    }
    return mpidbg_eh_restore(cx, &xp->eh, rc);
}

/* mpidbg_xr_truncated says whether an error code is of class
 * MPI_ERR_TRUNCATE (MPICH codes carry more than the class). */
int mpidbg_xr_truncated(int e)
{
    int c = 0;
    return e != MPI_SUCCESS && PMPI_Error_class(e, &c) == MPI_SUCCESS && c == MPI_ERR_TRUNCATE;
}

/* ---- requests (requests.c calls these) ---- */
int mpidbg_xr_is_recv(const struct mpidbg_robj *o)
{
    if (!mpidbg_xr_on || !o || !o->rec)
        return 0;
    /* by call, not by the record's kind: an in-place collective has only
     * a receive side too */
    switch (o->call) {
    case MPIDBG_CALL_MPI_Irecv:
    case MPIDBG_CALL_MPI_Irecv_c:
    case MPIDBG_CALL_MPI_Imrecv:
    case MPIDBG_CALL_MPI_Imrecv_c:
    case MPIDBG_CALL_MPI_Recv_init:
    case MPIDBG_CALL_MPI_Recv_init_c:
    case MPIDBG_CALL_MPI_Isendrecv:
    case MPIDBG_CALL_MPI_Isendrecv_c:
    case MPIDBG_CALL_MPI_Isendrecv_replace:
    case MPIDBG_CALL_MPI_Isendrecv_replace_c:
        return 1;
    }
    return 0;
}

static int persistent_send(int call)
{
    switch (call) {
    case MPIDBG_CALL_MPI_Send_init:
    case MPIDBG_CALL_MPI_Bsend_init:
    case MPIDBG_CALL_MPI_Ssend_init:
    case MPIDBG_CALL_MPI_Rsend_init:
    case MPIDBG_CALL_MPI_Send_init_c:
    case MPIDBG_CALL_MPI_Bsend_init_c:
    case MPIDBG_CALL_MPI_Ssend_init_c:
    case MPIDBG_CALL_MPI_Rsend_init_c:
        return 1;
    }
    return 0;
}

/* mpidbg_xr_start opens a persistent request's window before MPI starts
 * it (MPI_THREAD_MULTIPLE only; xr_threads.c); mpidbg_xr_req_gone closes
 * what is still open when the start failed. */
void mpidbg_xr_start(struct mpidbg_robj *o)
{
    if (!mpidbg_xr_on || !o || !o->rec || !o->persistent)
        return;
    if (!mpidbg_mt) {
        /* its description goes to the ring before MPI starts it */
        struct mpidbg_cobj *co = persistent_send(o->call) && o->rec->peer != MPI_PROC_NULL
                                     ? mpidbg_hmap_get(&mpidbg_comms, o->rec->comm)
                                     : NULL;
        if (co && !co->freed && mpidbg_xr_has(co))
            o->xr_slot = ring_send(co, o->call, o->rec->site, o->rec->peer, o->rec->tag, o->rec->count,
                                   (MPI_Datatype)o->rec->datatype);
        return;
    }
    if (mpidbg_xr_is_recv(o)) {
        if (!o->xr_rwin)
            o->xr_rwin = mpidbg_xrw_begin(o->rec->comm, o->rec->peer, o->rec->tag,
                                          mpidbg_xr_key(o->rec->datatype, o->rec->count, o->rec->site, o->call));
        return;
    }
    if (persistent_send(o->call) && o->rec->peer != MPI_PROC_NULL)
        mpidbg_xs_begin(&o->xr_xs, o->rec->comm, o->rec->peer, o->rec->tag,
                        mpidbg_xr_key(o->rec->datatype, o->rec->count, o->rec->site, o->call));
}

void mpidbg_xr_req_gone(struct mpidbg_robj *o)
{
    if (!o)
        return;
    if (o->xr_slot)
        mpidbg_ring_void(o->xr_slot);
    o->xr_slot = NULL;
    mpidbg_xs_abort(&o->xr_xs);
    int32_t w = o->xr_rwin;
    o->xr_rwin = 0;
    mpidbg_xrw_end(w, -1, 0);
}

void mpidbg_xr_started(struct mpidbg_robj *o)
{
    if (!mpidbg_xr_on || !o || !o->rec || !persistent_send(o->call))
        return;
    struct mpidbg_cobj *co = mpidbg_hmap_get(&mpidbg_comms, o->rec->comm);
    if (o->xr_slot) {
        o->xr_slot = NULL;
        if (co)
            count_sent(co, o->rec->peer, 1);
        return;
    }
    if (!co || co->freed || !mpidbg_xr_has(co)) {
        mpidbg_xs_abort(&o->xr_xs);
        return;
    }
    shadow_send(co, o->call, o->rec->site, o->rec->peer, o->rec->tag, o->rec->count, (MPI_Datatype)o->rec->datatype, &o->xr_xs,
                0);
}

void mpidbg_xr_snap(const struct mpidbg_robj *o, struct mpidbg_xr_rsnap *s)
{
    s->o = NULL;
    if (!mpidbg_xr_is_recv(o))
        return;
    s->o = (struct mpidbg_robj *)o;
    s->serial = o->serial;
    s->call = o->call;
    s->comm = o->rec->comm;
    s->site = o->rec->site;
    s->type = o->rec->datatype;
    s->count = o->rec->count;
    s->peer = o->rec->peer;
    s->tag = o->rec->tag;
    s->rwin = o->xr_rwin;
    s->post = o->xr_post;
    s->xr = o->xr;
    s->rdesc = o->xr_rdesc;
    s->kept = o->xr_kept;
}

/* mpidbg_xr_recv_posted keeps a new request's datatype description
 * (mpidbg_robj.xr_rdesc) when it is a receive: descriptions are never
 * freed, so the pointer outlives the type. Called for derived types
 * only (a predefined type's handle never names another). */
void mpidbg_xr_recv_posted(struct mpidbg_robj *o)
{
    uint32_t siglen, exprlen;
    if (mpidbg_xr_is_recv(o))
        o->xr_rdesc = type_blob((MPI_Datatype)o->rec->datatype, &siglen, &exprlen);
}

/* sendrecv_nb: the nonblocking send-receives, whose request completes a
 * receive as well as a send */
static int sendrecv_nb(int call)
{
    return call == MPIDBG_CALL_MPI_Isendrecv || call == MPIDBG_CALL_MPI_Isendrecv_c ||
           call == MPIDBG_CALL_MPI_Isendrecv_replace || call == MPIDBG_CALL_MPI_Isendrecv_replace_c;
}

void mpidbg_xr_recv_snap(const struct mpidbg_xr_rsnap *s, const MPI_Status *st, int err)
{
    if (!st || !s->o)
        return;
    /* the window is this completion's to end, on every path; the record
     * lets go of it unless it is another request's by now (MPI handed the
     * handle to another thread, whose request has its own window) */
    int32_t rwin = s->rwin;
    struct mpidbg_xr_got *kept = NULL;
    if (rwin || s->kept) {
        mpidbg_wlock();
        if (s->o->serial == s->serial && rwin && s->o->xr_rwin == rwin)
            s->o->xr_rwin = 0;
        if (s->o->serial == s->serial && s->kept && s->o->xr_kept == s->kept) {
            kept = s->kept; /* this completion's to free */
            s->o->xr_kept = NULL;
        }
        mpidbg_wunlock();
    }
    int cancelled = 0;
    struct mpidbg_cobj *co = NULL;
    if ((err != MPI_SUCCESS && !mpidbg_xr_truncated(err)) ||
        s->peer == MPI_PROC_NULL || /* no message; MPI need not even write the status of such a request */
        PMPI_Test_cancelled(st, &cancelled) != MPI_SUCCESS || cancelled || /* MPI_Cancel took it back: no message */
        !(co = mpidbg_hmap_get(&mpidbg_comms, s->comm)) || s->xr == MPI_COMM_NULL || s->xr == (MPI_Comm)0) {
        mpidbg_xrw_end(rwin, -1, 0);
        mpidbg_xr_kept_free(kept);
        return;
    }
    int source = s->call == MPIDBG_CALL_MPI_Imrecv || s->call == MPIDBG_CALL_MPI_Imrecv_c ? MPI_ANY_SOURCE - 1 : s->peer;
    /* The message's source and tag, from the status; for a nonblocking
     * send-receive from the receive's own arguments where they name
     * them: MPICH 4.0's MPI_Isendrecv completes with an empty status
     * (source 0, tag 0), which would wait for a shadow that never
     * comes. */
    int src = st->MPI_SOURCE, tag = st->MPI_TAG;
    if (sendrecv_nb(s->call)) {
        if (s->peer >= 0)
            src = s->peer;
        if (s->tag != MPI_ANY_TAG)
            tag = s->tag;
    }
    /* the request's own shadow: the communicator may have been freed since (its shadow is kept while this request lives) */
    shadow_recv(co, s->xr, src, tag, (MPI_Datatype)s->type, s->count, source, s->tag, s->site, s->call, rwin, s->post, 0,
                s->o, s->serial, s, kept);
    mpidbg_xr_kept_free(kept);
}

void mpidbg_xr_recv_done(struct mpidbg_robj *o, const MPI_Status *st, int err)
{
    struct mpidbg_xr_rsnap s;
    mpidbg_xr_snap(o, &s);
    mpidbg_xr_recv_snap(&s, st, err);
}

/* ---- init and finalize ---- */
void mpidbg_xr_init(void)
{
    const char *b = getenv("MPIDBG_BUFFERING");
    mpidbg_xr_zero = b && strcmp(b, "zero") == 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    sent_to = calloc((size_t)world_size, sizeof *sent_to);
    recvd_from = calloc((size_t)world_size, sizeof *recvd_from);
    /* the node segment's set-up, freed once it is made */
    struct mpidbg_node_hello *hello = calloc((size_t)world_size, sizeof *hello);
    uint8_t *says = calloc((size_t)world_size, 1);
    unsigned cross = (1u << MPIDBG_CAT_TYPE_MISMATCH) | (1u << MPIDBG_CAT_COLLECTIVE_MISMATCH) | (1u << MPIDBG_CAT_MESSAGE_RACE) |
                     (1u << MPIDBG_CAT_LOST_MESSAGE);
    mpidbg_xr_on = sent_to && recvd_from && hello && says && (mpidbg_disabled & cross) != cross;
    if (mpidbg_xr_on)
        mpidbg_node_init(world_size, mpidbg_mt, hello, says);
    free(hello);
    free(says);
    mpidbg_blocked_init();
}

static void report_lost(struct mpidbg_cx *fcx, const struct xr_hdr *h, struct mpidbg_cobj *co)
{
    struct mpidbg_cx cx = *fcx;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, &cx, MPIDBG_F_LOST_MESSAGE, NULL);
    ev.count = h->count;
    ev.val = h->tag;
    ev.handle = co->handle;
    if (co->rec && co->rec->name[0])
        ev.text = co->rec->name;
    /* the place is the send's, in the sender; this rank's finalize is related */
    ev.site = 0;
    ev.flags = MPIDBG_FLAG_REMOTE_SITE;
    ev.nremote = 1;
    ev.remote_rank[0] = h->world;
    ev.remote_mod[0] = h->site_mod;
    ev.remote_off[0] = h->site_off;
    ev.remote_call[0] = h->call;
    ev.related_site = fcx->site;
    ev.related_call = fcx->call;
    ev.related_kind = MPIDBG_REL_FINALIZE;
    mpidbg_report(&cx, &ev);
}

struct drain {
    struct mpidbg_cx *cx;
    int64_t missing;
    /* for pending_match: the shadow's communicator, source and tag */
    struct mpidbg_cobj *co;
    int src, tag, found;
};

/* pending_match looks for a receive request of this rank that is still
 * active and would take the message: MPI delivered it there, the program
 * just never completed the request (request-never-completed says so). */
static void pending_match(void *val, void *arg)
{
    struct mpidbg_robj *o = val;
    struct drain *d = arg;
    if (d->found || !o || !o->live || !o->active || o->xr_claimed || !o->rec || !mpidbg_xr_is_recv(o) || o->rec->comm != d->co->handle)
        return;
    if ((o->rec->peer == d->src || o->rec->peer == MPI_ANY_SOURCE) && (o->rec->tag == d->tag || o->rec->tag == MPI_ANY_TAG)) {
        d->found = 1;
        o->xr_claimed = 1; /* one message each */
    }
}

static void drain_comm(void *val, void *arg)
{
    struct mpidbg_cobj *co = val;
    struct drain *d = arg;
    if (!co || co->freed || !mpidbg_xr_has(co) || d->missing <= 0)
        return;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        if (PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, co->xr, &flag, &st) != MPI_SUCCESS || !flag)
            return;
        uint64_t buf[XR_MAX / 8];
        if (PMPI_Recv(buf, XR_MAX, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, co->xr, &st) != MPI_SUCCESS)
            return;
        struct xr_hdr h;
        memcpy(&h, buf, sizeof h);
        if (h.magic != XR_MAGIC)
            continue;
        d->missing--;
        d->co = co;
        d->src = st.MPI_SOURCE;
        d->tag = st.MPI_TAG;
        d->found = 0;
        mpidbg_hmap_each(&mpidbg_requests, pending_match, d);
        if (!d->found)
            report_lost(d->cx, &h, co);
    }
}

struct by_gid {
    uint64_t gid;
    struct mpidbg_cobj *co;
};

static void find_gid(void *val, void *arg)
{
    struct mpidbg_cobj *co = val;
    struct by_gid *b = arg;
    if (co && co->gid == b->gid && (!b->co || b->co->freed))
        b->co = co;
}

/* ring_lost reports the slots of the node rings no receive took */
static void ring_lost(struct drain *d)
{
    struct mpidbg_rdesc m;
    for (int s = 0; s < mpidbg_node_n; s++) {
        while (mpidbg_ring_left(s, &m)) {
            d->missing--;
            struct by_gid b = {m.gid, NULL};
            mpidbg_hmap_each(&mpidbg_comms, find_gid, &b);
            int w = mpidbg_node_world(s), src = -1;
            for (int i = 0; b.co && b.co->peers && i < b.co->npeers; i++)
                if (b.co->peers[i] == w)
                    src = i;
            if (!b.co || src < 0)
                continue;
            struct xr_hdr h = desc_hdr(&m, w);
            d->co = b.co;
            d->src = src;
            d->tag = m.tag;
            d->found = 0;
            mpidbg_hmap_each(&mpidbg_requests, pending_match, d);
            if (!d->found)
                report_lost(d->cx, &h, b.co);
        }
    }
}

/* held_lost reports a message a matched probe claimed, with its shadow,
 * and no receive took */
static void held_lost(void *arg, MPI_Comm c, const struct mpidbg_xr_got *g)
{
    struct drain *d = arg;
    struct xr_hdr h;
    struct mpidbg_cobj *co = mpidbg_hmap_get(&mpidbg_comms, MPIDBG_H(c));
    if (!g->valid || d->missing <= 0)
        return;
    memcpy(&h, g->buf, sizeof h);
    d->missing--;
    if (co)
        report_lost(d->cx, &h, co);
}

/* pair_weight is the lost-message sums' weight of a message from world
 * rank from to world rank to: a mix of the pair, odd */
static uint64_t pair_weight(int from, int to)
{
    return mpidbg_mix64((uint64_t)(uint32_t)from << 32 | (uint32_t)to) | 1u;
}

/* mpidbg_xr_finalize finds the messages sent to this rank that no
 * receive took: the ranks add up the messages sent and received in the
 * whole job and, when the sums differ, exchange how many each sent to
 * each (exact, whatever the timing); the shadows still queued are those
 * messages' descriptions. */
void mpidbg_xr_finalize(struct mpidbg_cx *cx)
{
    if (!mpidbg_xr_on)
        return;
    reap(0);
    XR_LOCK();
    mpidbg_xr_race_finalize();
    XR_UNLOCK();
    if (!mpidbg_world || !mpidbg_xr_has(mpidbg_world) || !mpidbg_enabled(MPIDBG_F_LOST_MESSAGE))
        return;
    int64_t *to_me = calloc((size_t)world_size, sizeof *to_me);
    if (!to_me)
        return;
    mpidbg_blocked_begin(cx, MPIDBG_WAIT_AND);
    mpidbg_blocked_wait(MPIDBG_WAIT_COLL, -1, 0, mpidbg_world, 0, cx->call, 0);
    mpidbg_blocked_publish();
    /* the job's totals first, each message weighted by its pair of
     * ranks: equal sums mean every rank received all that was sent to it
     * (a surplus on one pair, a message a receiver took from a ring slot
     * its sender then withdrew, cannot cancel a loss on another), and the
     * all-to-all of per-peer counts (P numbers per rank) is paid only by
     * a job that lost messages. Sums wrap modulo 2^64; one lost message
     * always shows (the weights are odd), several could cancel with a
     * probability of about 2^-64. */
    uint64_t mine[2] = {0, 0}, all[2] = {0, 0};
    for (int i = 0; i < world_size; i++) {
        mine[0] += (uint64_t)sent_to[i] * pair_weight(mpidbg_world_rank, i);
        mine[1] += (uint64_t)recvd_from[i] * pair_weight(i, mpidbg_world_rank);
    }
    MPI_Request r;
    int rc = PMPI_Iallreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, mpidbg_world->xr, &r);
    if (rc == MPI_SUCCESS)
        rc = mpidbg_xr_wait(&r);
    int lost = rc == MPI_SUCCESS && all[0] != all[1];
    if (lost) {
        rc = PMPI_Ialltoall(sent_to, 1, MPI_INT64_T, to_me, 1, MPI_INT64_T, mpidbg_world->xr, &r);
        if (rc == MPI_SUCCESS)
            rc = mpidbg_xr_wait(&r);
    }
    mpidbg_blocked_end();
    if (lost && rc == MPI_SUCCESS) {
        struct drain d = {cx, 0};
        for (int i = 0; i < world_size; i++)
            if (to_me[i] > recvd_from[i])
                d.missing += to_me[i] - recvd_from[i];
        if (mpidbg_node_p2p && d.missing > 0)
            ring_lost(&d);
        if (d.missing > 0)
            mpidbg_xr_messages_held(held_lost, &d);
        /* the shadows were sent before the counts: they arrive; wait a
         * little for those still on the way, never long */
        for (int tries = 0; d.missing > 0 && tries < 200; tries++) {
            mpidbg_hmap_each(&mpidbg_comms, drain_comm, &d);
            if (d.missing > 0) {
                struct timespec ts = {0, 5 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
        }
    }
    free(to_me);
    reap(1);
}
