/*
 * The collectives' agreement between the ranks of one host: descriptors
 * in each rank's collective area of the node segment (xr_node.h) instead
 * of an allreduce on the shadow (docs/cross-rank.md, "Collectives").
 *
 * A rank's area: a directory of NDIR communicators (their job-wide ids),
 * and for each entry a ring of K slots, slot seq % K holding the
 * descriptor of the communicator's collective number seq. A slot is a
 * seqlock: its seq is 0 while the owner writes it and the collective's
 * number once it is published (release store); a reader copies it and
 * checks that seq did not change meanwhile.
 *
 * Which communicators use it is decided when one is made, on every
 * member alike: an intracommunicator whose members are all on this host,
 * few enough for a slot to hold a block per member, and a directory
 * entry free on every member (one allreduce, at the creation, which is
 * collective). Every other communicator keeps the allreduce.
 *
 * A blocking collective writes its descriptor and waits for every other
 * member's: a rank is then at most one collective ahead of any member on
 * that communicator, so K slots never lose one. Nonblocking and
 * persistent ones write it at the call and read at completion: a rank
 * that starts more than K of them before a slower one completes the
 * first overwrites descriptors not read yet; the reader sees the later
 * number in the slot and skips that check (mpidbg_xcn_lost counts them).
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "xr_coll_node.h"

#define NDIR 14
#define K 8
#define SLOT 2560 /* the descriptor and a 40-byte block for each of 60 members, in whole cache lines */
#define DIR_BYTES 4096
#define HDR 32

_Static_assert(DIR_BYTES + (size_t)NDIR * K * SLOT <= MPIDBG_NODE_COLL, "the rings fit the area");
_Static_assert(NDIR * 64 <= DIR_BYTES, "the directory fits");

struct slot {
    uint64_t seq; /* written last (release); 0 while written */
    uint64_t gid;
    uint32_t reclen, blklen;
    uint32_t pad[2];
};
_Static_assert(sizeof(struct slot) == HDR, "slot header");

struct mpidbg_xcn {
    int entry;    /* this rank's directory entry; -1: a communicator of one */
    int n, me;
    int32_t *node; /* each member's node index */
    int8_t *dir;   /* each member's entry, -1 not looked up yet */
};

unsigned long mpidbg_xcn_lost;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
/* an entry is free (0), taken (1) or retired (its communicator freed
 * here, its id and slots left for the members still reading them: taken
 * again only when no entry is free, the longest retired first) */
static uint8_t used[NDIR];
static uint64_t retired_at[NDIR], retire_clock;

/* take_entry: under mu */
static int take_entry(void)
{
    int best = -1;
    for (int e = 0; e < NDIR; e++) {
        if (!used[e]) {
            best = e;
            break;
        }
        if (used[e] == 2 && (best < 0 || retired_at[e] < retired_at[best]))
            best = e;
    }
    if (best >= 0)
        used[best] = 1;
    return best;
}

static uint64_t *dir_gid(int idx, int e)
{
    return (uint64_t *)(mpidbg_node_coll(idx) + (size_t)e * 64);
}

static struct slot *slot_at(int idx, int e, uint64_t seq)
{
    return (struct slot *)(mpidbg_node_coll(idx) + DIR_BYTES + ((size_t)e * K + (size_t)(seq % K)) * SLOT);
}

void mpidbg_xcn_new(struct mpidbg_cobj *co, size_t reclen, size_t blk)
{
    mpidbg_xcn_free(co);
    if (!mpidbg_node_on || co->inter || !co->gid || co->npeers != co->size || !co->peers || co->size < 1 ||
        HDR + reclen + (size_t)co->size * blk > SLOT)
        return;
    for (int i = 0; i < co->npeers; i++)
        if (mpidbg_node_index(co->peers[i]) < 0)
            return;
    struct mpidbg_xcn *x = calloc(1, sizeof *x);
    if (!x)
        return;
    x->n = co->size;
    x->me = co->rank;
    x->entry = -1;
    x->node = calloc((size_t)x->n, sizeof *x->node);
    x->dir = malloc((size_t)x->n);
    int ok = x->node && x->dir;
    if (ok) {
        for (int i = 0; i < x->n; i++)
            x->node[i] = mpidbg_node_index(co->peers[i]);
        memset(x->dir, -1, (size_t)x->n);
    }
    if (x->n > 1) {
        /* every member takes an entry, or none uses the rings; an entry
         * is published before the allreduce, so that a member past it
         * finds every other member's */
        if (ok) {
            pthread_mutex_lock(&mu);
            x->entry = take_entry();
            pthread_mutex_unlock(&mu);
        }
        if (x->entry >= 0) {
            /* a retired entry's readers see its id go and skip it */
            __atomic_store_n(dir_gid(mpidbg_node_me, x->entry), 0, __ATOMIC_RELEASE);
            for (int k = 0; k < K; k++)
                __atomic_store_n(&slot_at(mpidbg_node_me, x->entry, (uint64_t)k)->seq, 0, __ATOMIC_RELAXED);
            /* the slots are cleared before the id is seen */
            __atomic_store_n(dir_gid(mpidbg_node_me, x->entry), co->gid, __ATOMIC_RELEASE);
        }
        int in = ok && x->entry >= 0, out = 0;
        MPI_Request r;
        if (PMPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_MIN, co->xr, &r) != MPI_SUCCESS || mpidbg_xr_wait(&r) != MPI_SUCCESS)
            out = 0;
        if (x->entry >= 0 && !out) {
            __atomic_store_n(dir_gid(mpidbg_node_me, x->entry), 0, __ATOMIC_RELEASE);
            pthread_mutex_lock(&mu);
            used[x->entry] = 0;
            pthread_mutex_unlock(&mu);
        }
        ok = out;
    }
    if (!ok) {
        free(x->node);
        free(x->dir);
        free(x);
        return;
    }
    co->xcn = x;
}

void mpidbg_xcn_free(struct mpidbg_cobj *co)
{
    struct mpidbg_xcn *x = co->xcn;
    if (!x)
        return;
    co->xcn = NULL;
    if (x->entry >= 0) {
        /* retired: members may still be reading its last descriptors */
        pthread_mutex_lock(&mu);
        used[x->entry] = 2;
        retired_at[x->entry] = ++retire_clock;
        pthread_mutex_unlock(&mu);
    }
    free(x->node);
    free(x->dir);
    free(x);
}

void mpidbg_xcn_put(struct mpidbg_cobj *co, uint64_t seq, const void *rec, size_t reclen, const void *blk, size_t blklen)
{
    struct mpidbg_xcn *x = co->xcn;
    if (x->entry < 0)
        return;
    struct slot *s = slot_at(mpidbg_node_me, x->entry, seq);
    __atomic_store_n(&s->seq, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    s->gid = co->gid;
    s->reclen = (uint32_t)reclen;
    s->blklen = (uint32_t)blklen;
    uint8_t *p = (uint8_t *)(s + 1);
    memcpy(p, rec, reclen);
    if (blklen)
        memcpy(p + reclen, blk, blklen);
    __atomic_store_n(&s->seq, seq, __ATOMIC_RELEASE);
}

/* find looks member i's directory entry up: -1 when its id is not there
 * (the member freed the communicator). */
static int find(struct mpidbg_cobj *co, int i)
{
    struct mpidbg_xcn *x = co->xcn;
    int e = x->dir[i];
    if (e >= 0 && __atomic_load_n(dir_gid(x->node[i], e), __ATOMIC_ACQUIRE) == co->gid)
        return e;
    for (e = 0; e < NDIR; e++)
        if (__atomic_load_n(dir_gid(x->node[i], e), __ATOMIC_ACQUIRE) == co->gid) {
            x->dir[i] = (int8_t)e;
            return e;
        }
    return -1;
}

int mpidbg_xcn_get(struct mpidbg_cobj *co, uint64_t seq, int i, void *rec, size_t reclen, void *blk, size_t blkoff,
                   size_t blklen)
{
    struct mpidbg_xcn *x = co->xcn;
    int e = find(co, i);
    if (e < 0)
        return MPIDBG_XCN_LOST;
    struct slot *s = slot_at(x->node[i], e, seq);
    uint64_t q = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
    if (q == 0 || q < seq || s->gid != co->gid)
        return MPIDBG_XCN_NOTYET; /* not written yet (an older number, or another communicator's before) */
    const uint8_t *p = (const uint8_t *)(s + 1);
    uint32_t rl = s->reclen, bl = s->blklen;
    if (rl == reclen)
        memcpy(rec, p, reclen);
    int got = blk && blkoff + blklen <= bl;
    if (got)
        memcpy(blk, p + rl + blkoff, blklen);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != q || rl != reclen)
        return MPIDBG_XCN_LOST; /* overwritten while read: by a later one */
    if (q != seq)
        return MPIDBG_XCN_LATER; /* rec is a later collective's */
    return got ? MPIDBG_XCN_FOUND_BLK : MPIDBG_XCN_FOUND;
}

void mpidbg_xcn_relax(struct mpidbg_cobj *co, unsigned *spins)
{
    unsigned n = ++*spins;
    if (n < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
    }
    /* the others may need this rank's MPI to progress before they get
     * here (a rendezvous send it has a receive posted for): a probe
     * drives it, as the allreduce's wait did */
    int flag = 0;
    if (mpidbg_xr_has(co))
        PMPI_Iprobe(MPI_ANY_SOURCE, 32767, co->xr, &flag, MPI_STATUS_IGNORE);
    if (n > 1024)
        sched_yield();
}
