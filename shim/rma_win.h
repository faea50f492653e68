/*
 * The one-sided race checks' own state (rma.c, rma_epoch.c, rma_target.c);
 * docs/rma-races.md says what they check and why this way.
 *
 *   rma.c         the hooks: windows, operations, epochs, origin buffers
 *                 handed to the access tracker and released by the call
 *                 that completes them;
 *   rma_epoch.c   the operations' records travel to their targets (fence,
 *                 PSCW, and the passive-target log at MPI_Win_free) and
 *                 are compared there (rma-conflict);
 *   rma_target.c  the target's own loads and stores to window memory
 *                 during fence and exposure epochs (rma-target-race), and
 *                 the report helpers both use.
 *
 * Not installed: shim.h's rules apply (hidden, mpidbg_ prefix).
 */
#ifndef MPIDBG_RMA_WIN_H
#define MPIDBG_RMA_WIN_H

#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "tclock.h"

#define MPIDBG_RMA_HIDDEN __attribute__((visibility("hidden")))

/* What an operation does to its target bytes. */
enum { MPIDBG_RMA_READ = 1, MPIDBG_RMA_WRITE = 2, MPIDBG_RMA_ACC = 3 };
/* The synchronisation it was issued under. */
enum { MPIDBG_RMA_FENCE = 0, MPIDBG_RMA_PSCW = 1, MPIDBG_RMA_PASSIVE = 2, MPIDBG_RMA_NMODE = 3 };
/* Record flags. */
#define MPIDBG_RMA_EXCL 1u    /* under an exclusive lock on its target */
#define MPIDBG_RMA_NOOP 4u    /* an accumulate with MPI_NO_OP: an atomic read */
/* Passive target: synchronisation through window memory the clock cannot
 * see (an atomic flag written after this operation completed, read before
 * the other one started). */
#define MPIDBG_RMA_ACQ 8u     /* its origin issued a fetching atomic (Fetch_and_op, Compare_and_swap, Get_accumulate) on the window, or at the same target process, before it */
#define MPIDBG_RMA_REL 16u    /* its origin issued an accumulate-family update on the window, or at the same target process, after it completed */
/* The window info its origin gave (rma_info.c): the orderings of
 * accumulate_ordering (MPI-4.1 §12.7.2; all four by default, none for
 * "none") and accumulate_ops=same_op (§12.2.1; same_op_no_op by default). */
#define MPIDBG_RMA_ORD_RAR 32u
#define MPIDBG_RMA_ORD_RAW 64u
#define MPIDBG_RMA_ORD_WAR 128u
#define MPIDBG_RMA_ORD_WAW 256u
#define MPIDBG_RMA_ORD_ALL (MPIDBG_RMA_ORD_RAR | MPIDBG_RMA_ORD_RAW | MPIDBG_RMA_ORD_WAR | MPIDBG_RMA_ORD_WAW)
#define MPIDBG_RMA_SAME_OP 512u
/* Passive target under thread clocks (tclock.h): struct mpidbg_rma_tc
 * follows the blocks. */
#define MPIDBG_RMA_TC 1024u
/* The op value Compare_and_swap records: it replaces, conditionally. */
#define MPIDBG_RMA_OP_CAS (-1)

/* One operation as its target sees it: the wire form, followed by nblk
 * blocks {lo, hi} in window space (bytes from the target's window base;
 * absolute addresses for dynamic windows). Plain data: it travels as
 * MPI_BYTE between ranks running the same shim. */
struct mpidbg_rma_rec {
    int32_t origin;   /* rank in the window's group */
    int32_t call;     /* call id */
    int32_t kind;     /* MPIDBG_RMA_READ ... */
    int32_t op;       /* an accumulate's op: MPIDBG_BUILTIN_OP_INDEX, MPIDBG_RMA_OP_CAS, -2 user-defined; 0 none */
    int32_t basic;    /* datatype.Basic of the target type (accumulates), -1 unknown */
    uint32_t flags;
    uint32_t site_mod; /* the call site, as another rank can name it (mpidbg_site_code) */
    int32_t nblk;
    uint64_t site_off;
    /* passive target: the Lamport clock (mpidbg_xr_clock, which only
     * synchronisation advances) when issued and when completed at the
     * target (the flush or unlock that completed it), for operations of
     * different origins; the origin's own sequence of RMA calls at the
     * same two moments, for operations of one origin */
    uint64_t start, end;
    uint64_t sstart, send;
    uint64_t mutex; /* the exclusive lock its origin held when issuing it (window id << 32 | rank + 1), 0 none */
    int64_t disp;        /* target_disp as given, for messages */
    int32_t disp_unit;
    int32_t mode;        /* MPIDBG_RMA_FENCE ... */
    /* accumulates: the bytes of one element of the basic type, when its
     * elements lie end to end in each block (0: not known, a pair type
     * with a gap) */
    int32_t esize;
    int32_t pad;
    /* passive: CLOCK_MONOTONIC when issued and when completed (start and
     * end's moments), in ns; one clock for the ranks of a host
     * (rma_passive.c orders an atomic flag's raising and its polling by
     * it) */
    uint64_t issued_ns, ended_ns;
};

struct mpidbg_rma_blk {
    int64_t lo, hi;
};

/* A passive record's events in thread-clock terms: the issuing thread's
 * (slot, count), the completion's (the flush or unlock that completed it
 * at the target, made by a thread that knew of the call; ecount 0: none
 * did), and what the issuing thread knew when it made the call. Two
 * records of one origin are ordered when the later one's thread knew
 * the earlier one's completion. For other processes, before it travels,
 * the record's start becomes the issuing thread's own Lamport clock (what
 * it imported, not what other threads did), and its end the first clock
 * with which that completion was known outside this process
 * (mpidbg_tc_published). */
struct mpidbg_rma_tc {
    uint32_t tslot, tcount, eslot, ecount;
    struct mpidbg_tc_vc vc; /* its lamport: the start other processes compare with */
};

/* A block of one of the records an epoch's comparison looks at. */
struct mpidbg_rma_iv {
    int64_t lo, hi;
    int rec; /* index of its record */
};

/* The target-side watches sample by number: the first `always` epochs
 * (or watch periods) of a window, then those whose number is a power of
 * two, so that a million costs about twenty more. */
static inline int mpidbg_rma_sampled(uint64_t n, uint64_t always)
{
    return n < always || (n & (n - 1)) == 0;
}

static inline size_t mpidbg_rma_rec_size(const struct mpidbg_rma_rec *r)
{
    return sizeof *r + (size_t)r->nblk * sizeof(struct mpidbg_rma_blk) +
           (r->flags & MPIDBG_RMA_TC ? sizeof(struct mpidbg_rma_tc) : 0);
}
/* The thread-clock part of a record with MPIDBG_RMA_TC. */
static inline struct mpidbg_rma_tc *mpidbg_rma_rec_tc(const struct mpidbg_rma_rec *r)
{
    return (struct mpidbg_rma_tc *)(void *)((char *)r + sizeof *r + (size_t)r->nblk * sizeof(struct mpidbg_rma_blk));
}
static inline struct mpidbg_rma_blk *mpidbg_rma_blks(const struct mpidbg_rma_rec *r)
{
    return (struct mpidbg_rma_blk *)(void *)((char *)r + sizeof *r);
}
/* Whether the operation writes its target bytes (an MPI_NO_OP accumulate
 * only reads them). */
static inline int mpidbg_rma_rec_writes(const struct mpidbg_rma_rec *r)
{
    return r->kind == MPIDBG_RMA_WRITE || (r->kind == MPIDBG_RMA_ACC && !(r->flags & MPIDBG_RMA_NOOP));
}

/* The passive records of one issuing thread-clock slot that no flush
 * has completed yet, in issue order: offsets into the buffer. */
struct mpidbg_rma_tcq {
    size_t *off;
    size_t n, cap;
};

/* A growing byte buffer of records. */
struct mpidbg_rma_buf {
    uint8_t *p;
    size_t len, cap;
    size_t open; /* passive: records before this offset have their end clock, or wait in tcq */
    /* passive, under thread clocks: MPIDBG_TC_SLOTS queues (made with the
     * first such record), so that a flush looks only at what it may
     * complete: a prefix of each queue, since a thread knows another's
     * calls up to some count */
    struct mpidbg_rma_tcq *tcq;
};

/* An origin buffer handed to the tracker, until the call that completes
 * its operation at the origin. */
struct mpidbg_rma_trk {
    int32_t target, id;
};

/* One local access to window memory, from the tracker's log. */
struct mpidbg_rma_acc {
    int64_t off; /* window space */
    uint64_t pc;
    uint64_t clock; /* passive: mpidbg_xr_clock when it ran */
    uint64_t tag;   /* passive: the window's tag when it ran (MPIDBG_RMA_TAG_*) */
    int32_t write, pad;
    uint32_t tslot, tcount; /* passive, under thread clocks: as struct mpidbg_tr_access */
    uint64_t lclock;
    uint64_t pub; /* at the check: mpidbg_tc_published(tslot, tcount) */
};

/* The window's tag (rma.c keeps it current, the tracker copies it into
 * every access it logs): what ordered this rank's own accesses to its
 * window memory against passive-target epochs when they ran. */
#define MPIDBG_RMA_TAG_SHARED 1u /* it held a shared lock on its own window (MPI_Win_lock, MPI_Win_lock_all) */
#define MPIDBG_RMA_TAG_EXCL 2u   /* an exclusive lock on its own window */
#define MPIDBG_RMA_TAG_ACQ 4u    /* it had issued a fetching atomic or MPI_Win_sync on the window */
#define MPIDBG_RMA_TAG_MUTEX 8u  /* it held an exclusive lock on some window (a mutex) */
#define MPIDBG_RMA_TAG_SEQ 4     /* the rest: rma.c's seq, this rank's passive-target calls so far */

/* A window, as the race checks know it. Made collectively with the
 * window (mpidbg_rma_win_new), so that every member has one or none. */
struct mpidbg_rma_win {
    struct mpidbg_rma_win *next;
    MPI_Win win;
    MPI_Comm comm;       /* a private duplicate of the window's communicator; MPI_COMM_NULL: no exchanges */
    int size, rank;      /* the window's group */
    int flavor;          /* MPI_WIN_FLAVOR_... */
    int64_t wid;         /* the same on every member, unique on each, agreed at creation (rma.c) */
    int32_t xbusy;       /* an exchange is under way (mpidbg_rma_xbegin) */
    pthread_t xowner;    /* the thread that runs it */
    int xon;             /* exchanges run (the same on every member) */
    int passive_ok;      /* the Lamport clock is kept (cross-rank checks on): passive epochs are compared */
    char *base;          /* this rank's window memory */
    int64_t wsize;
    int32_t *units;      /* each member's disp_unit */
    int32_t *world;      /* each member's rank in MPI_COMM_WORLD */
    /* access state at this rank */
    uint8_t *lock;       /* per target: 0 none, 1 shared, 2 exclusive */
    int lock_all;
    int pscw_access;     /* between MPI_Win_start and MPI_Win_complete */
    int *access, naccess;   /* the start group, as window ranks */
    int *expose, nexpose;   /* the post group, as window ranks */
    int pscw_expose;        /* between MPI_Win_post and MPI_Win_wait/test */
    int fence_open;         /* since a fence without MPI_MODE_NOSUCCEED */
    uint32_t accinfo;       /* MPIDBG_RMA_ORD_* and MPIDBG_RMA_SAME_OP from the window's info at this rank */
    uint64_t first_fetch;   /* passive: the sequence number of this rank's first fetching atomic, 0 none */
    uint64_t last_accw;     /* passive: that of its last accumulate-family update, 0 none */
    /* records per mode, each an array of size buffers (one per target), made when first used */
    struct mpidbg_rma_buf *rec[MPIDBG_RMA_NMODE];
    size_t bytes[MPIDBG_RMA_NMODE]; /* recorded so far in the mode's current epoch (passive: ever) */
    /* origin buffers handed to the tracker */
    struct mpidbg_rma_trk *trk;
    int ntrk, trkcap;
    /* origin and result buffers pending until completion (rma_pending.c) */
    struct mpidbg_rma_pend **pend, **pfree;
    int npend, nfree, pcap;
    /* the target's own accesses to window memory (fence, exposure epochs) */
    int log_id;                      /* the tracker's log range, 0 none */
    uint64_t epochs;                 /* fence and exposure epochs opened so far (the watch samples them) */
    struct mpidbg_rma_acc *acc;
    int nacc;
    /* the target's own accesses outside fence and exposure epochs, for
     * passive-target epochs (rma_passive.c) */
    int plog_id;          /* the tracker's log range, 0 none */
    int ppaused;          /* not watched until the clock moves */
    uint64_t pclock;      /* the clock when it stopped */
    uint64_t pwatches;    /* watch periods so far (sampled) */
    uint64_t ptag;        /* MPIDBG_RMA_TAG_*, copied into each logged access */
    int pacq;             /* MPIDBG_RMA_TAG_ACQ holds from now on */
    struct mpidbg_rma_acc *pacc; /* collected, without repeats */
    int npacc;
    int32_t *phash;       /* indices into pacc, open addressing; -1 empty */
    /* the exchange's arrays, made with the window: counts and clocks sent
     * and received (4 x size), MPI_Count counts and displacements (4 x size) */
    int64_t *xcnt;
    MPI_Count *xc;
    /* PSCW records sent with MPI_Isend, freed when sent */
    MPI_Request *sreq;
    void **sbuf;
    int nsend, sendcap;
};

/* Budgets: a record has at most MPIDBG_RMA_MAXBLK blocks (an operation
 * with more leaves none); a mode keeps at most MPIDBG_RMA_BUDGET bytes of
 * records per epoch (passive: per window); a target keeps at most
 * MPIDBG_RMA_MAXACC local accesses per epoch. */
#define MPIDBG_RMA_MAXBLK 1024
#define MPIDBG_RMA_BUDGET ((size_t)16 << 20)
#define MPIDBG_RMA_MAXACC 1024
/* What one origin sends one target at a fence or MPI_Win_free: at most
 * max(MPIDBG_RMA_PAIR_MIN, MPIDBG_RMA_TARGET_MAX / size) bytes, so that a
 * target never receives much more than MPIDBG_RMA_TARGET_MAX at once. */
#define MPIDBG_RMA_PAIR_MIN ((size_t)64 << 10)
#define MPIDBG_RMA_TARGET_MAX ((size_t)64 << 20)

/* The Go side (rma_blocks.go). */
extern int64_t mpidbg_go_rma_blocks(uint64_t type, int64_t count, int64_t *out, int64_t max, int32_t *basic,
                                     int32_t *esize);

/* rma.c */
MPIDBG_RMA_HIDDEN struct mpidbg_rma_win *mpidbg_rma_win_of(MPI_Win w);
MPIDBG_RMA_HIDDEN void mpidbg_rma_buf_free(struct mpidbg_rma_buf *b);
MPIDBG_RMA_HIDDEN void mpidbg_rma_bufs_clear(struct mpidbg_rma_win *w, int mode);
MPIDBG_RMA_HIDDEN void mpidbg_rma_lock(void);
/* An exchange on a window's communicator blocks until every member joins
 * it. Under MPI_THREAD_MULTIPLE the lock is let go while it waits
 * (threads of another member may need it to join an exchange of another
 * window); the window stays the exchanging thread's own until
 * mpidbg_rma_xend, and mpidbg_rma_win_of makes other threads wait for it. */
MPIDBG_RMA_HIDDEN void mpidbg_rma_xbegin(struct mpidbg_rma_win *w);
MPIDBG_RMA_HIDDEN void mpidbg_rma_xend(struct mpidbg_rma_win *w);
MPIDBG_RMA_HIDDEN void mpidbg_rma_unlock(void);

/* rma_epoch.c */
/* The non-empty blocks of n records (writers_only: of those that write),
 * sorted by first byte: a malloc'd array of *k, NULL when there are none
 * or no memory. */
MPIDBG_RMA_HIDDEN struct mpidbg_rma_iv *mpidbg_rma_ivs(const struct mpidbg_rma_rec **recs, int n, int writers_only,
                                                      size_t *k);
MPIDBG_RMA_HIDDEN void mpidbg_rma_fence_exchange(struct mpidbg_rma_win *w, int final);
MPIDBG_RMA_HIDDEN void mpidbg_rma_pscw_send(struct mpidbg_rma_win *w);
MPIDBG_RMA_HIDDEN void mpidbg_rma_pscw_recv(struct mpidbg_rma_win *w);
MPIDBG_RMA_HIDDEN void mpidbg_rma_sends_reap(struct mpidbg_rma_win *w, int all);

/* rma_target.c */
MPIDBG_RMA_HIDDEN void mpidbg_rma_watch(struct mpidbg_rma_win *w);
MPIDBG_RMA_HIDDEN void mpidbg_rma_unwatch(struct mpidbg_rma_win *w);
MPIDBG_RMA_HIDDEN void mpidbg_rma_accesses_check(struct mpidbg_rma_win *w, const struct mpidbg_rma_rec **recs, int n,
                                                 int epoch);
/* mpidbg_rma_watchable: the window memory can be watched (tracking and
 * the category on, exchanges run, not a dynamic window). log_window hands
 * a watchable window (its callers check: the passive path before it
 * counts a watch period) to the tracker in log mode (tag, stalled:
 * mpidbg_tr_what's); returns the range's id, 0 when it is not watched. */
MPIDBG_RMA_HIDDEN int mpidbg_rma_watchable(const struct mpidbg_rma_win *w);
MPIDBG_RMA_HIDDEN int mpidbg_rma_log_window(struct mpidbg_rma_win *w, int logcap, const uint64_t *tag,
                                            int32_t *stalled);
/* mpidbg_rma_report_target reports access a against record r; epoch says
 * which epoch they share (enum mpidbg_epoch). */
MPIDBG_RMA_HIDDEN void mpidbg_rma_report_target(struct mpidbg_rma_win *w, const struct mpidbg_rma_acc *a,
                                                const struct mpidbg_rma_rec *r, int epoch);
/* mpidbg_rma_access says what a record does to the target's bytes
 * (enum mpidbg_access), for the findings' words. rma_epoch.c. */
MPIDBG_RMA_HIDDEN int mpidbg_rma_access(const struct mpidbg_rma_rec *r);

/* rma_pending.c: the buffers of an operation without a request become
 * pending buffers (pending.c) from the call (add) until the call that
 * completes it at the origin (release, for the operations to target; -1:
 * all); drop: release all and free, with the window. */
struct mpidbg_cx;
struct mpidbg_rma;
MPIDBG_RMA_HIDDEN void mpidbg_rma_pending_add(struct mpidbg_cx *cx, struct mpidbg_rma_win *w, const struct mpidbg_rma *a);
MPIDBG_RMA_HIDDEN void mpidbg_rma_pending_release(struct mpidbg_rma_win *w, int target);
MPIDBG_RMA_HIDDEN void mpidbg_rma_pending_drop(struct mpidbg_rma_win *w);

/* rma_passive.c: the target's own accesses against passive-target epochs.
 * arm: watch the window memory from now (sampled); disarm: collect what
 * was logged and stop (pause: until the clock moves, then arm again);
 * step: at a wrapper's exit while mpidbg_rma_due is set (stalled: the
 * tracker gave up on a watched range); check: at
 * MPI_Win_free, against the passive records that arrived; drop: free. */
MPIDBG_RMA_HIDDEN void mpidbg_rma_passive_arm(struct mpidbg_rma_win *w);
MPIDBG_RMA_HIDDEN void mpidbg_rma_passive_disarm(struct mpidbg_rma_win *w, int pause);
MPIDBG_RMA_HIDDEN int mpidbg_rma_passive_step(struct mpidbg_rma_win *w, int stalled);
MPIDBG_RMA_HIDDEN void mpidbg_rma_passive_check(struct mpidbg_rma_win *w, const struct mpidbg_rma_rec **recs, int n);
MPIDBG_RMA_HIDDEN void mpidbg_rma_passive_drop(struct mpidbg_rma_win *w);

#endif
