/*
 * The collectives' agreement through the node segment (xr_coll_node.c):
 * each member of a communicator on this host writes its descriptor of a
 * collective into its own collective area, the others read it there.
 */
#ifndef MPIDBG_XR_COLL_NODE_H
#define MPIDBG_XR_COLL_NODE_H

#include <stddef.h>
#include <stdint.h>

struct mpidbg_cobj;

#define MPIDBG_HIDDEN_XCN __attribute__((visibility("hidden")))

enum {
    MPIDBG_XCN_NOTYET = 0, /* not written yet */
    MPIDBG_XCN_FOUND,      /* rec copied; the blocks asked for are not there */
    MPIDBG_XCN_FOUND_BLK,  /* rec and the blocks copied */
    MPIDBG_XCN_LATER,      /* overwritten by a later collective: rec is that one's */
    MPIDBG_XCN_LOST,       /* gone, nothing copied */
};

/* descriptors read too late: overwritten, or their communicator freed */
MPIDBG_HIDDEN_XCN extern unsigned long mpidbg_xcn_lost;

/* mpidbg_xcn_new decides, at a communicator's creation (collective over
 * it, after its shadow and id are made), whether its collectives agree
 * through the segment: sets co->xcn then. reclen: a descriptor's bytes,
 * blk: a block's per member. */
MPIDBG_HIDDEN_XCN void mpidbg_xcn_new(struct mpidbg_cobj *co, size_t reclen, size_t blk);
MPIDBG_HIDDEN_XCN void mpidbg_xcn_free(struct mpidbg_cobj *co);
/* put publishes this rank's descriptor of collective seq; get copies
 * member i's (its rec and blklen bytes of its blocks from blkoff). */
MPIDBG_HIDDEN_XCN void mpidbg_xcn_put(struct mpidbg_cobj *co, uint64_t seq, const void *rec, size_t reclen, const void *blk,
                                      size_t blklen);
MPIDBG_HIDDEN_XCN int mpidbg_xcn_get(struct mpidbg_cobj *co, uint64_t seq, int i, void *rec, size_t reclen, void *blk,
                                     size_t blkoff, size_t blklen);
/* relax: one step of a wait for others' descriptors */
MPIDBG_HIDDEN_XCN void mpidbg_xcn_relax(struct mpidbg_cobj *co, unsigned *spins);

#endif
