/*
 * The access tracker's interface (track.c): byte ranges of buffers MPI
 * owns, watched with page protection, so that the program's own loads
 * and stores to them fault and are checked against the exact bytes.
 *
 * Users: requests.c (nonblocking and persistent point-to-point and
 * collectives: a pending send's buffer, a pending receive's buffer),
 * rma.c (origin and result buffers of one-sided operations until the
 * call that completes them; window memory during an exposure epoch, in
 * log mode).
 *
 * Contract for callers:
 *   - mpidbg_track_add may refuse (returns 0): tracking off, a filter or
 *     the sampling policy said no, no room. A caller never depends on
 *     tracking for anything but findings.
 *   - Every id it returned is given back exactly once to
 *     mpidbg_track_remove, before MPI is told the buffer is free again
 *     (before PMPI_Wait of the request, before the PMPI synchronisation
 *     call that completes an RMA operation) or right after that call when
 *     the caller cannot know in advance (MPI_Test).
 *   - Accesses made while this thread is inside a wrapper (mpidbg_depth >
 *     0: the MPI library, the shim itself) are never reported: they are
 *     the library moving the data. They mark the range "moved": a later
 *     access by the program is then latent (fid_latent) instead of fid.
 *   - Calls come from the thread that calls MPI, under no shim lock.
 */
#ifndef MPIDBG_TRACK_H
#define MPIDBG_TRACK_H

#include <stdint.h>

#include "engine.h"

/* What faults. */
enum mpidbg_tr_mode {
    MPIDBG_TR_STORES = 1, /* stores fault (PROT_READ): a buffer MPI reads (send, Put origin) */
    MPIDBG_TR_ALL = 2,    /* loads and stores fault (PROT_NONE): a buffer MPI writes (receive, Get result) */
    MPIDBG_TR_LOG = 3,    /* loads and stores are recorded, not reported (window memory in an epoch) */
};

/* What a watched range belongs to: what the report says. */
struct mpidbg_tr_what {
    int32_t fid;        /* the finding for a program access before MPI moved the data */
    int32_t fid_latent; /* after it moved the data; -1: report fid anyway */
    int32_t call;       /* the operation's call id */
    int32_t moved;      /* 1: MPI moved the data already (the operation completed when it started) */
    uint64_t site;      /* the operation's call site (a return address) */
    uint64_t addr;      /* the buffer as the call named it, for the element path */
    int64_t count;
    uint64_t type;
};

/* One access recorded in log mode. */
struct mpidbg_tr_access {
    uint64_t addr;  /* the byte that faulted */
    uint64_t pc;    /* the instruction */
    int32_t write;  /* 1 store, 0 load */
    int32_t pad;
};

/* 1 when the tracker runs (MPIDBG_RACE is not "off" and one of the
 * buffer-race and rma-race categories is on); read without a lock. */
extern int mpidbg_track_on __attribute__((visibility("hidden")));

/* mpidbg_track_init installs the fault handlers; at MPI_Init, after the
 * Go runtime has installed its own (ours chain to them). */
__attribute__((visibility("hidden"))) void mpidbg_track_init(void);

/* mpidbg_track_add starts watching the bytes [seg->lo, seg->hi) of a
 * buffer; seg->addr/count/type say what lies there. Returns an id > 0,
 * or 0 when the range is not watched. */
__attribute__((visibility("hidden"))) int mpidbg_track_add(const struct mpidbg_seg *seg, int mode,
                                                          const struct mpidbg_tr_what *w);

/* mpidbg_track_remove stops watching; the pages get their protection
 * back when no other range needs them. */
__attribute__((visibility("hidden"))) void mpidbg_track_remove(int id);

/* mpidbg_track_moved says that MPI has moved the data of a range (the
 * operation is known to be done, its completion call not yet made). */
__attribute__((visibility("hidden"))) void mpidbg_track_moved(int id);

/* mpidbg_track_log copies up to max accesses recorded for a log-mode
 * range since it was added (or since the last call); returns how many,
 * and sets *lost when some did not fit. */
__attribute__((visibility("hidden"))) int mpidbg_track_log(int id, struct mpidbg_tr_access *out, int max, int *lost);

/* mpidbg_track_exit runs when a wrapper returns to the program: it
 * protects again the pages the library faulted on during the call, and
 * reports the accesses the fault handler queued. Cheap when there is
 * nothing to do (one thread-local load). */
__attribute__((visibility("hidden"))) void mpidbg_track_exit_slow(void);
extern __thread int mpidbg_track_dirty __attribute__((tls_model("initial-exec"), visibility("hidden")));
extern int mpidbg_track_queued __attribute__((visibility("hidden")));
static inline void mpidbg_track_exit(void)
{
    if (__builtin_expect(mpidbg_track_dirty | __atomic_load_n(&mpidbg_track_queued, __ATOMIC_RELAXED), 0))
        mpidbg_track_exit_slow();
}

/* mpidbg_track_flush reports what the fault handler queued (at
 * MPI_Finalize, and from the watcher thread). */
__attribute__((visibility("hidden"))) void mpidbg_track_flush(void);

#endif
