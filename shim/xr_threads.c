/*
 * Shadows paired with messages when threads send and receive at once
 * (MPI_THREAD_MULTIPLE).
 *
 * A receive pairs its message with the next shadow from the same source
 * and tag (xr_p2p.c): right when the shadows of a stream (communicator,
 * source, tag) were sent in the order of the messages, and pulled in the
 * order in which the receives matched them. One thread keeps both orders
 * (MPI-4.1 §3.5, non-overtaking). Two threads may not: "if a process is
 * multithreaded ... the operations are logically concurrent, even if one
 * physically precedes the other" (§3.5), so two sends of different
 * threads to the same destination and tag may have their messages and
 * their shadows in opposite orders, and two receives of different threads
 * may pull each other's shadow.
 *
 * Neither the message nor the status says which send a message came
 * from, so the pairing cannot be repaired; but the pairs that can be
 * wrong are known, and those are not checked:
 *
 *   - A send's window runs from its wrapper's entry (before MPI sees the
 *     message) to the posting of its shadow, held under the lock. Two
 *     sends whose windows are disjoint have their messages and their
 *     shadows in the same order. A shadow whose send overlapped another
 *     send to the same communicator, destination and tag (a hash bucket
 *     of them: a collision only checks less) is flagged ambiguous, and so
 *     is the other's. A shadow not flagged is in the position of its own
 *     message: every send it was not concurrent with is on the same side
 *     of it in both orders.
 *   - A receive's window runs from before MPI sees it (posting) to the
 *     pull of its shadow. MPI matches a stream's messages to the receives
 *     that take from it in their posting order (§3.5: a message matches
 *     the first matching receive posted); two receives whose windows are
 *     disjoint match and pull in the same order. A receive is ambiguous
 *     when a receive whose window overlapped its own took, or could still
 *     take, from the same stream: one in progress whose source and tag
 *     (wildcards included) match the stream, or one that ended during its
 *     window with that stream.
 *
 * An ambiguous pair still counts (lost messages) and still carries its
 * clock, but its signature is not compared and it takes no part in the
 * message-race check. Threads that keep to their own tags or
 * communicators, the usual way of hybrid codes, are never ambiguous.
 * Below MPI_THREAD_MULTIPLE none of this runs.
 */
#include <pthread.h>
#include <string.h>

#include "shim.h"

#define NBUCKET 256

/* A group is the span of time in which a bucket has windows in progress:
 * the windows linked by overlaps. Its members are interchangeable when
 * they share a key (the type, count, call and call site of the side
 * concerned): shadows of such sends carry the same signature, count and
 * place whichever message they pair with, and such receives would check
 * any shadow the same way, so their mix-ups change no type check. A
 * window that begins after another's end takes its message and its
 * shadow after it, so a window needs only the members that began before
 * its end. */
struct group {
    uint64_t key;
    uint32_t inprog;
    uint32_t mixed; /* a member's key differed */
};

static void group_join(struct group *g, uint64_t key)
{
    if (!g->inprog++) {
        g->key = key;
        g->mixed = 0;
    } else if (g->key != key) {
        g->mixed = 1;
    }
}

static int group_verdict(const struct group *g, int overlapped)
{
    if (!overlapped)
        return MPIDBG_XR_EXACT;
    return g->mixed ? MPIDBG_XR_AMBIG : MPIDBG_XR_SWAP;
}

static struct {
    uint64_t starts; /* sends begun on the bucket */
    struct group g;
    pthread_t by;    /* the thread of its first send */
    int32_t used, threads; /* a send began; sends of more than one thread did */
} sb[NBUCKET];

static uint32_t bucket(uint64_t comm, int peer, int tag)
{
    uint64_t h = comm * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)peer * 0xc2b2ae3d27d4eb4full ^ (uint64_t)(uint32_t)tag;
    h ^= h >> 29;
    return (uint32_t)(h % NBUCKET);
}

uint64_t mpidbg_xr_key(uint64_t type, int64_t count, uint64_t site, int call)
{
    uint64_t h = type * 0x9e3779b97f4a7c15ull ^ (uint64_t)count * 0xc2b2ae3d27d4eb4full ^ site ^ (uint64_t)(uint32_t)call << 48;
    return h ^ h >> 31;
}

void mpidbg_xs_begin(struct mpidbg_xsend *s, uint64_t comm, int dest, int tag, uint64_t key)
{
    s->on = 0;
    if (!mpidbg_mt || dest < 0)
        return;
    uint32_t b = bucket(comm, dest, tag);
    pthread_mutex_lock(&mpidbg_xr_mu);
    s->on = 1;
    s->bucket = b;
    s->start = ++sb[b].starts;
    s->amb = sb[b].g.inprog > 0; /* overlapped */
    group_join(&sb[b].g, key);
    if (!sb[b].used) {
        sb[b].used = 1;
        sb[b].by = pthread_self();
    } else if (!pthread_equal(sb[b].by, pthread_self())) {
        sb[b].threads = 1;
    }
    pthread_mutex_unlock(&mpidbg_xr_mu);
}

int mpidbg_xs_end_locked(struct mpidbg_xsend *s)
{
    if (!s || !s->on)
        return MPIDBG_XR_EXACT;
    s->on = 0;
    uint32_t b = s->bucket;
    int v = group_verdict(&sb[b].g, s->amb || sb[b].starts != s->start);
    sb[b].g.inprog--;
    return v;
}

/* mpidbg_xs_now_locked is a window's verdict so far, the window staying
 * open: a send-receive's shadow goes before its message (xr_p2p.c). A
 * send that begins after it still overlaps it and is flagged itself, but
 * its message may still go first and take this shadow: on a bucket that
 * sends of more than one thread used, the shadow is ambiguous. The first
 * send of a second thread on a bucket, during such a window, is the case
 * left unguarded. */
int mpidbg_xs_now_locked(const struct mpidbg_xsend *s)
{
    if (!s || !s->on)
        return MPIDBG_XR_EXACT;
    if (sb[s->bucket].threads)
        return MPIDBG_XR_AMBIG;
    return group_verdict(&sb[s->bucket].g, s->amb || sb[s->bucket].starts != s->start);
}

void mpidbg_xs_abort(struct mpidbg_xsend *s)
{
    if (!s || !s->on)
        return;
    pthread_mutex_lock(&mpidbg_xr_mu);
    mpidbg_xs_end_locked(s);
    pthread_mutex_unlock(&mpidbg_xr_mu);
}

/* ---- receives ----
 * A window's id is its slot and the slot's generation, so that an id
 * ended twice (a completion path and a clean-up both ending it) never
 * ends the window of another thread that got the slot since. A receive
 * that found no slot is lost: it counts as overlapping every receive
 * while it is open, and up to its end. */
#define NRWIN 256
#define RW_SLOT_BITS 9
static struct rwin {
    uint64_t comm, begin;
    int32_t src, tag, used;
    uint32_t gen;
} rw[NRWIN];
/* when a receive of a stream (a bucket of streams) last pulled its shadow */
static uint64_t last_end[NBUCKET];
/* receive groups, by communicator (a bucket of them): the receive of a
 * wildcard names no stream before its message comes */
static struct group rg[NBUCKET];
static uint64_t rseq;
static int rw_hi;         /* slots above are unused */
static int rw_open;       /* windows open, lost ones included */
static int lost_open;     /* lost windows open */
static uint64_t lost_end; /* when a lost window last ended */

static int matches(int32_t pat_src, int32_t pat_tag, int src, int tag)
{
    return (pat_src == src || pat_src == MPI_ANY_SOURCE) && (pat_tag == tag || pat_tag == MPI_ANY_TAG);
}

int32_t mpidbg_xrw_begin(uint64_t comm, int src, int tag, uint64_t key)
{
    if (!mpidbg_mt || src == MPI_PROC_NULL)
        return 0;
    pthread_mutex_lock(&mpidbg_xr_mu);
    int32_t id = MPIDBG_XRW_LOST;
    rw_open++;
    for (int i = 0; i < NRWIN; i++)
        if (!rw[i].used) {
            uint32_t gen = (rw[i].gen + 1) & ((1u << (30 - RW_SLOT_BITS)) - 1);
            rw[i] = (struct rwin){comm, ++rseq, src, tag, 1, gen};
            id = (int32_t)(gen << RW_SLOT_BITS | (uint32_t)(i + 1));
            if (i + 1 > rw_hi)
                rw_hi = i + 1;
            group_join(&rg[bucket(comm, 0, 0)], key);
            break;
        }
    if (id == MPIDBG_XRW_LOST)
        lost_open++;
    pthread_mutex_unlock(&mpidbg_xr_mu);
    return id;
}

int mpidbg_xrw_end_locked(int32_t id, int src, int tag)
{
    if (!id)
        return MPIDBG_XR_EXACT;
    if (id == MPIDBG_XRW_LOST) {
        if (lost_open > 0) {
            lost_open--;
            rw_open--;
        }
        lost_end = ++rseq;
        return MPIDBG_XR_AMBIG;
    }
    int slot = (id & ((1 << RW_SLOT_BITS) - 1)) - 1;
    uint32_t gen = (uint32_t)id >> RW_SLOT_BITS;
    if (id < 0 || slot < 0 || slot >= NRWIN || !rw[slot].used || rw[slot].gen != gen)
        return MPIDBG_XR_AMBIG; /* ended already: the pairing is not known */
    struct rwin *me = &rw[slot];
    struct group *g = &rg[bucket(me->comm, 0, 0)];
    int v = MPIDBG_XR_EXACT;
    if (src >= 0) {
        int overlapped = 0, lost = lost_open > 0 || lost_end > me->begin;
        for (int i = 0; i < rw_hi && !overlapped; i++)
            if (rw[i].used && &rw[i] != me && rw[i].comm == me->comm && matches(rw[i].src, rw[i].tag, src, tag))
                overlapped = 1;
        uint32_t b = bucket(me->comm, src, tag);
        if (last_end[b] > me->begin)
            overlapped = 1;
        last_end[b] = ++rseq;
        v = lost ? MPIDBG_XR_AMBIG : group_verdict(g, overlapped);
    }
    g->inprog--;
    me->used = 0;
    rw_open--;
    return v;
}

int mpidbg_xrw_end(int32_t id, int src, int tag)
{
    if (!id)
        return MPIDBG_XR_EXACT;
    pthread_mutex_lock(&mpidbg_xr_mu);
    int v = mpidbg_xrw_end_locked(id, src, tag);
    pthread_mutex_unlock(&mpidbg_xr_mu);
    return v;
}

int mpidbg_xrw_open_locked(void)
{
    return rw_open;
}

uint64_t mpidbg_xr_unique_key(void)
{
    static uint64_t n;
    return 1ull << 63 | __atomic_add_fetch(&n, 1, __ATOMIC_RELAXED);
}
