/*
 * The node segment: memory the ranks of one host share, so that what
 * one rank tells another about its MPI calls needs no MPI message
 * (docs/cross-rank.md, "On one host: shared memory").
 *
 * Made once, at MPI_Init, by the ranks whose host names and boot ids
 * are the same (xr_node.c). Layout, for n ranks (node indices
 * 0..n-1 in world-rank order):
 *
 *   - a ring per ordered pair (s, d): the descriptions of the messages s
 *     sends d (struct mpidbg_rslot), written by s only and consumed by d;
 *   - an arena per rank, written by that rank only and append-only:
 *     datatype descriptions the slots point to, immutable once written;
 *   - a collective area per rank, written by that rank only (its layout
 *     is xr_coll's).
 *
 * A rank only ever writes its own parts; every part another rank reads
 * is published with a release store and read with an acquire load, and
 * MPI's own message between the two ranks orders the writes before the
 * read that a received message prompts.
 */
#ifndef MPIDBG_XR_NODE_H
#define MPIDBG_XR_NODE_H

#include <stddef.h>
#include <stdint.h>

enum { MPIDBG_SLOT_FREE = 0, MPIDBG_SLOT_VALID = 1, MPIDBG_SLOT_VOID = 2 };

/* A message's description: what the shadow message's header carries
 * (xr_p2p.c), with the sender's datatype description as a reference into
 * the sender's arena. */
struct mpidbg_rdesc {
    uint64_t gid;      /* the communicator's job-wide id (xr_comm.c) */
    uint64_t clock;
    int64_t count;
    uint64_t site_off;
    uint32_t site_mod;
    int32_t tag;
    int16_t call;
    uint16_t flags;    /* XR_KNOWN, XR_UNSURE (xr_p2p.c) */
    uint32_t blob;     /* offset of the signature in the sender's arena + 1; 0: none */
    uint32_t siglen, exprlen;
};

/* A ring's slot, one cache line: the description and the word that says
 * whose it is, which the two sides write atomically. */
struct mpidbg_rslot {
    uint64_t seq;      /* (the message's number between the pair + 1) << 2 | MPIDBG_SLOT_*: written last (release); 0 never written */
    struct mpidbg_rdesc d;
};
_Static_assert(sizeof(struct mpidbg_rslot) == 64, "a slot is one cache line");

/* A ring's header, on a cache line of its own. */
struct mpidbg_ring {
    uint32_t mpi;      /* set once the sender fell back to shadow messages for this pair: they follow every slot */
    uint32_t pad[15];
    struct mpidbg_rslot slot[];
};

#define MPIDBG_HIDDEN_NODE __attribute__((visibility("hidden")))

MPIDBG_HIDDEN_NODE extern int mpidbg_node_on;  /* the segment exists */
MPIDBG_HIDDEN_NODE extern int mpidbg_node_p2p; /* point-to-point descriptions go through the rings (no rank of the host has MPI_THREAD_MULTIPLE) */
MPIDBG_HIDDEN_NODE extern int mpidbg_node_n, mpidbg_node_me;
MPIDBG_HIDDEN_NODE extern uint32_t mpidbg_node_nslot; /* slots per ring, a power of two */
#define MPIDBG_NODE_RESERVE 256u /* slots of a ring given memory at a time */

/* What each rank tells the others at MPI_Init: its host, and a random
 * number of which only the host's first rank's is used, to name the
 * host's object. The name keeps other jobs from colliding with this one;
 * it is not what keeps other users out (the object's owner and mode
 * are), so 64 bits are plenty, and 16 bytes per rank keep the allgather
 * small at a hundred thousand ranks. */
struct mpidbg_node_hello {
    uint64_t host;
    uint64_t secret; /* 0: getrandom failed */
};

/* mpidbg_node_init makes the segment; collective over MPI_COMM_WORLD.
 * mt: this rank runs under MPI_THREAD_MULTIPLE; hello and says: room for
 * world_size entries each, the caller's (it is allocated with the rest
 * of the cross-rank state, so that a rank that cannot have it takes part
 * in no collective of the shim's at all). */
MPIDBG_HIDDEN_NODE void mpidbg_node_init(int world_size, int mt, struct mpidbg_node_hello *hello, uint8_t *says);
/* the node index of a world rank, -1 when it is on another host */
MPIDBG_HIDDEN_NODE int mpidbg_node_index(int world);
/* mpidbg_node_reserve gives memory to the next MPIDBG_NODE_RESERVE slots,
 * from slot from, of this rank's ring to host rank d, and returns how
 * many slots of it have memory then (0: none could be had) */
MPIDBG_HIDDEN_NODE uint32_t mpidbg_node_reserve(int d, uint32_t from);
MPIDBG_HIDDEN_NODE int mpidbg_node_world(int idx);
MPIDBG_HIDDEN_NODE struct mpidbg_ring *mpidbg_node_ring(int s, int d);
/* the arena: put copies len bytes into this rank's arena and returns
 * their offset + 1, or 0 when it is full; at reads another rank's. */
MPIDBG_HIDDEN_NODE uint32_t mpidbg_node_put(const void *p, uint32_t len);
MPIDBG_HIDDEN_NODE const uint8_t *mpidbg_node_at(int idx, uint32_t off, uint32_t len);
/* the rings (xr_ring.c): made ready at the segment's creation (0: no
 * memory for this rank's positions in them); a sender claims the slot to write for host
 * rank d (NULL: the pair uses shadow messages from now on), fills it and
 * publishes it, or voids it when MPI refused the send; a receiver takes
 * the oldest slot of a communicator and tag from host rank s (1), finds
 * none where the sender fell back (0) or none at all (-1); at
 * MPI_Finalize it takes what is left. */
MPIDBG_HIDDEN_NODE int mpidbg_ring_init(int n);
MPIDBG_HIDDEN_NODE struct mpidbg_rslot *mpidbg_ring_claim(int d);
MPIDBG_HIDDEN_NODE void mpidbg_ring_fall_back(int d);
MPIDBG_HIDDEN_NODE void mpidbg_ring_publish(int d, struct mpidbg_rslot *s);
MPIDBG_HIDDEN_NODE void mpidbg_ring_void(struct mpidbg_rslot *s);
MPIDBG_HIDDEN_NODE int mpidbg_ring_take(int s, uint64_t gid, int tag, struct mpidbg_rdesc *out);
MPIDBG_HIDDEN_NODE int mpidbg_ring_left(int s, struct mpidbg_rdesc *out);
/* a rank's collective area, MPIDBG_NODE_COLL bytes */
#define MPIDBG_NODE_COLL (320u << 10)
MPIDBG_HIDDEN_NODE uint8_t *mpidbg_node_coll(int idx);

#endif
