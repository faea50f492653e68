/*
 * The rings of the node segment (xr_node.h): one per ordered pair of
 * ranks on a host, carrying the descriptions of the messages the first
 * sends the second, in send order. They replace the shadow message
 * between ranks of one host (xr_p2p.c).
 *
 * The sender writes a message's slot before it hands the message to MPI,
 * so the slot is in place whenever the message can have arrived. The
 * receiver, when a receive completed, takes the oldest slot of the
 * message's communicator and tag: MPI's non-overtaking rule (MPI-4.1
 * §3.5) makes that the message's own, as the shadow message's matching
 * did. A slot is the sender's to reuse once taken; a slot not taken yet
 * where the sender would write means the ring is full, and from then on
 * that pair uses shadow messages (the ring's mpi flag): every slot then
 * precedes every shadow message, so the receiver looks in the ring first
 * and goes to the shadow communicator when it finds nothing there.
 *
 * Each slot carries the number of the message it holds (plus one: 0 is
 * a slot never written) and its state, in one word the sender writes
 * last (release) and the receiver reads first (acquire). The sender
 * writes in order and never skips, so the messages written are the
 * slots from the receiver's tail up to the first whose number is not the
 * one expected there; no shared counter is needed, and a message costs
 * the cache line of its slot only. Single writer, single reader per
 * ring: no lock.
 */
#include <stdlib.h>

#include "shim.h"

static uint64_t *tails; /* per sender on the host: the oldest message this rank may not have taken */
static uint64_t *heads; /* per receiver on the host: the messages this rank described */
static uint32_t *reserved; /* per receiver on the host: the slots of this rank's ring to it that have memory */

static inline uint64_t word(uint64_t i, uint32_t state)
{
    return (i + 1) << 2 | state;
}

static inline uint64_t number_of(uint64_t v)
{
    return (v >> 2) - 1; /* meaningful when v != 0 */
}

static inline uint32_t state_of(uint64_t v)
{
    return (uint32_t)(v & 3u);
}

static struct mpidbg_rslot *slot_at(struct mpidbg_ring *r, uint64_t i)
{
    return &r->slot[i & (mpidbg_node_nslot - 1)];
}

int mpidbg_ring_init(int n)
{
    tails = calloc((size_t)n, sizeof *tails);
    heads = calloc((size_t)n, sizeof *heads);
    reserved = calloc((size_t)n, sizeof *reserved);
    for (int i = 0; reserved && i < n; i++)
        reserved[i] = mpidbg_node_nslot < MPIDBG_NODE_RESERVE ? mpidbg_node_nslot : MPIDBG_NODE_RESERVE;
    return tails && heads && reserved;
}

struct mpidbg_rslot *mpidbg_ring_claim(int d)
{
    struct mpidbg_ring *r = mpidbg_node_ring(mpidbg_node_me, d);
    if (__atomic_load_n(&r->mpi, __ATOMIC_RELAXED))
        return NULL;
    /* the receiver reads up to the first slot not written, so the one
     * after this must have memory before this one is written */
    uint64_t i = heads[d];
    if (i + 1 >= reserved[d] && reserved[d] < mpidbg_node_nslot) {
        uint32_t more = mpidbg_node_reserve(d, reserved[d]);
        if (!more) {
            __atomic_store_n(&r->mpi, 1, __ATOMIC_RELEASE);
            return NULL;
        }
        reserved[d] = more;
    }
    struct mpidbg_rslot *s = slot_at(r, i);
    uint64_t v = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
    if (v != 0 && state_of(v) != MPIDBG_SLOT_FREE) {
        /* the message written a ring ago is not taken yet: full */
        __atomic_store_n(&r->mpi, 1, __ATOMIC_RELEASE);
        return NULL;
    }
    return s;
}

void mpidbg_ring_fall_back(int d)
{
    __atomic_store_n(&mpidbg_node_ring(mpidbg_node_me, d)->mpi, 1, __ATOMIC_RELEASE);
}

void mpidbg_ring_publish(int d, struct mpidbg_rslot *s)
{
    __atomic_store_n(&s->seq, word(heads[d]++, MPIDBG_SLOT_VALID), __ATOMIC_RELEASE);
}

/* mpidbg_ring_void withdraws a slot whose send MPI refused: no message
 * follows it. */
void mpidbg_ring_void(struct mpidbg_rslot *s)
{
    uint64_t v = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
    /* only while still valid: the receiver may have taken it meanwhile */
    if (v != 0 && state_of(v) == MPIDBG_SLOT_VALID)
        __atomic_compare_exchange_n(&s->seq, &v, word(number_of(v), MPIDBG_SLOT_VOID), 0, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED);
}

/* advance moves the tail past the messages taken or withdrawn, up to the
 * first one not taken or not written yet */
static void advance(struct mpidbg_ring *r, int s)
{
    uint64_t t = tails[s];
    for (;;) {
        struct mpidbg_rslot *sl = slot_at(r, t);
        uint64_t v = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
        if (v == 0 || number_of(v) != t || state_of(v) == MPIDBG_SLOT_VALID)
            break;
        if (state_of(v) == MPIDBG_SLOT_VOID)
            __atomic_store_n(&sl->seq, word(t, MPIDBG_SLOT_FREE), __ATOMIC_RELEASE);
        t++;
    }
    tails[s] = t;
}

/* mpidbg_ring_take copies and frees the oldest message from host rank s
 * with this communicator and tag: 1 found; 0 none, and the pair fell
 * back to shadow messages (the message's is on the shadow
 * communicator); -1 none at all. */
int mpidbg_ring_take(int s, uint64_t gid, int tag, struct mpidbg_rdesc *out)
{
    struct mpidbg_ring *r = mpidbg_node_ring(s, mpidbg_node_me);
    int found = 0;
    for (uint64_t i = tails[s], end = i + mpidbg_node_nslot; i < end; i++) {
        struct mpidbg_rslot *sl = slot_at(r, i);
        uint64_t v = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
        if (v == 0 || number_of(v) != i)
            break; /* not written yet: the sender writes in order */
        if (state_of(v) != MPIDBG_SLOT_VALID || sl->d.gid != gid || sl->d.tag != tag)
            continue;
        *out = sl->d;
        __atomic_store_n(&sl->seq, word(i, MPIDBG_SLOT_FREE), __ATOMIC_RELEASE);
        found = 1;
        break;
    }
    advance(r, s);
    if (found)
        return 1;
    /* the flag is set before the first shadow message is sent, so before
     * the message this receive took */
    return __atomic_load_n(&r->mpi, __ATOMIC_ACQUIRE) ? 0 : -1;
}

/* mpidbg_ring_left copies and frees the oldest message from host rank s
 * still not taken: at MPI_Finalize, a message no receive took. */
int mpidbg_ring_left(int s, struct mpidbg_rdesc *out)
{
    struct mpidbg_ring *r = mpidbg_node_ring(s, mpidbg_node_me);
    advance(r, s);
    uint64_t t = tails[s];
    struct mpidbg_rslot *sl = slot_at(r, t);
    uint64_t v = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
    if (v == 0 || number_of(v) != t || state_of(v) != MPIDBG_SLOT_VALID)
        return 0;
    *out = sl->d;
    __atomic_store_n(&sl->seq, word(t, MPIDBG_SLOT_FREE), __ATOMIC_RELEASE);
    advance(r, s);
    return 1;
}
