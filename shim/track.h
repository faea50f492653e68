/*
 * The access tracker's interface (track.c): byte ranges of buffers MPI
 * owns, watched with page protection, so that the program's own loads
 * and stores to them fault and are checked against the exact bytes.
 * docs/races.md says how it works and what it costs.
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
 *     the caller cannot know in advance (MPI_Test). An id the tracker
 *     dropped on its own (MPI_Finalize) is ignored.
 *   - Accesses made while this thread is inside a wrapper (mpidbg_depth >
 *     0: the MPI library, the shim itself), or by code of the MPI library,
 *     UCX or the shim on any thread, are never reported: they are the
 *     library moving the data. They mark the range "moved": a later
 *     access by the program is then latent (fid_latent) instead of fid.
 *   - Calls come from the thread that calls MPI, under no shim lock.
 */
#ifndef MPIDBG_TRACK_H
#define MPIDBG_TRACK_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

/* What faults. A finding's event carries the mode (val), which the
 * messages read as checks.ModeMPIReads and ModeMPIWrites. */
enum mpidbg_tr_mode {
    MPIDBG_TR_STORES = MPIDBG_MODE_MPI_READS, /* stores fault (PROT_READ): a buffer MPI reads (send, Put origin) */
    MPIDBG_TR_ALL = MPIDBG_MODE_MPI_WRITES,   /* loads and stores fault (PROT_NONE): a buffer MPI writes (receive, Get result) */
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
    /* 1: the caller asked mpidbg_track_sample for this operation already;
     * 0: mpidbg_track_add samples by site itself (log mode never is). */
    int32_t sampled;
    /* 1: only the pages the buffer covers wholly are watched, none it
     * shares with other data, which threads and system calls outside the
     * shim's reach may write (a file write's buffer: POSIX AIO threads
     * read files into buffers beside it) */
    int32_t own_pages;
    /* log mode: entries the log holds (0: 4096) */
    int32_t logcap;
    /* log mode: a word the owner keeps current, copied into every entry
     * (NULL: 0) */
    const uint64_t *tag;
    /* log mode: the handler stores 1 here (a store, not an or) when the
     * range stops paying its way (its log is full, or one of its pages
     * was left open after too many false hits or library faults): the
     * owner should collect the log and remove the range at its next
     * chance (NULL: nobody asks) */
    int32_t *stalled;
};

/* One access recorded in log mode. */
struct mpidbg_tr_access {
    uint64_t addr;  /* the byte that faulted */
    uint64_t pc;    /* the instruction; in a libc leaf (memcpy), the call's return address - 1 */
    uint64_t clock; /* mpidbg_xr_clock when it ran */
    uint64_t tag;   /* *what.tag when it ran */
    int32_t write;  /* 1 store, 0 load */
    int32_t pad;
    /* under thread clocks (tclock.h): the access as an event of its
     * thread (tcount 0: none), and the thread's Lamport clock */
    uint32_t tslot, tcount;
    uint64_t lclock;
};

/* 1 when the tracker runs (MPIDBG_RACE is not "off" and one of the
 * buffer-race and rma-race categories is on); read without a lock. */
extern int mpidbg_track_on __attribute__((visibility("hidden")));

/* mpidbg_track_init installs the fault handlers; at MPI_Init, after the
 * Go runtime has installed its own (ours chain to them). */
__attribute__((visibility("hidden"))) void mpidbg_track_init(void);

/* mpidbg_track_first_go makes a thread's first call into Go, fn, with
 * every watched page open. Go binds a thread that is not its own at its
 * first callback with every signal blocked, and looks up the thread's
 * stack bounds there (pthread_getattr_np, which mallocs from the thread's
 * arena): a fault on a watched page of that arena could not reach the
 * fault handler, and the kernel would end the process. Later callbacks
 * find the thread bound. */
__attribute__((visibility("hidden"))) void mpidbg_track_first_go(void (*fn)(void));

/* mpidbg_track_thread_ends: the calling thread of the program is ending
 * (its start routine returned, or it exits or is cancelled). glibc's last
 * code for it runs with every signal blocked, where a fault on a watched
 * page would end the process: every watched page is open until the
 * thread is gone (track_thread_end.c). mpidbg_track_joined: a join of t
 * returned, t runs no more code. */
__attribute__((visibility("hidden"))) void mpidbg_track_thread_ends(void);
__attribute__((visibility("hidden"))) void mpidbg_track_joined(pthread_t t);

/* mpidbg_track_sync_object: obj is a synchronisation object glibc may
 * sleep on in futex(2); its pages are never protected from now on
 * (track_sync.c). */
__attribute__((visibility("hidden"))) void mpidbg_track_sync_object(const void *obj, size_t len);

/* mpidbg_track_chose_osc: the tracker chose Open MPI's one-sided
 * component (OMPI_MCA_osc, which the user did not set): UCX's, which
 * loads UCX into a rank that would not have it. */
extern int mpidbg_track_chose_osc __attribute__((visibility("hidden")));

/* mpidbg_track_hold: while code the program cannot see runs with every
 * signal blocked and may touch any page (a command being started,
 * track_spawn.c; a SIGEV_THREAD timer's thread, timers.c), every watched
 * page is open: d = 1 starts such a stretch, d = -1 ends it. */
__attribute__((visibility("hidden"))) void mpidbg_track_hold(int d);

/* The program's signal masks never block SIGSEGV and SIGTRAP
 * (track_sigmask.c). mpidbg_sig_usable: set without the two (a copy in
 * *tmp when it had them), for a call that passes a mask to the kernel;
 * mpidbg_sig_asked: which of the two the calling thread asked to block,
 * for a thread it starts; mpidbg_sig_thread_start: a thread of the
 * program begins, with its creator's (inherited), and its mask loses the
 * two. */
__attribute__((visibility("hidden"))) const sigset_t *mpidbg_sig_usable(const sigset_t *set, sigset_t *tmp);
__attribute__((visibility("hidden"))) int mpidbg_sig_asked(void);
__attribute__((visibility("hidden"))) void mpidbg_sig_thread_start(int inherited);

/* mpidbg_track_fini reports what is queued, stops watching every range
 * (operations never completed included) and turns the tracker off; at
 * MPI_Finalize, before the findings about never-completed requests. */
__attribute__((visibility("hidden"))) void mpidbg_track_fini(void);

/* mpidbg_track_add starts watching the bytes [seg->lo, seg->hi) of a
 * buffer; seg->addr/count/type say what lies there. Returns an id > 0,
 * or 0 when the range is not watched. missed (may be NULL) is set to the
 * length of the buffer's part on the first page of a stack buffer, from
 * its start, when the debug registers could not watch all of it (more
 * than the free ones hold), else 0: the caller copies those bytes
 * instead (MPIDBG_TR_SNAP_PAGE). */
__attribute__((visibility("hidden"))) int mpidbg_track_add(const struct mpidbg_seg *seg, int mode,
                                                          const struct mpidbg_tr_what *w, int *missed);

/* mpidbg_track_remove stops watching; the pages get their protection
 * back when no other range needs them. */
__attribute__((visibility("hidden"))) void mpidbg_track_remove(int id);

/* mpidbg_track_remove_n removes n ranges at once (ids of 0 are skipped),
 * their pages' protection set in one pass: one mprotect per run of pages
 * instead of one per range (a completion call that finishes many). */
__attribute__((visibility("hidden"))) void mpidbg_track_remove_n(const int *ids, int n);

/* mpidbg_track_moved: MPI moved the range's data (the operation it was
 * added for before MPI saw it completed at its start) */
__attribute__((visibility("hidden"))) void mpidbg_track_moved(int id);

/* mpidbg_track_reported: the program's access to the range was queued
 * for a report (the range is no longer watched); until it is removed. */
__attribute__((visibility("hidden"))) int mpidbg_track_reported(int id);

/* mpidbg_track_log copies the accesses recorded for a log-mode range
 * since it was added (or since the last call) and empties the log;
 * returns how many, and sets *lost when some were lost (the log was full,
 * or more than max: give it room for the log's capacity). */
__attribute__((visibility("hidden"))) int mpidbg_track_log(int id, struct mpidbg_tr_access *out, int max, int *lost);

/* mpidbg_track_sample is the sampling policy for one operation started
 * at site: 1 watch it, 0 skip it (docs/races.md: the first operations of
 * every site, then fewer and fewer while the site raises no finding).
 * mpidbg_track_found resets a site after a finding, so that its next
 * operations are watched again. */
__attribute__((visibility("hidden"))) int mpidbg_track_sample(uint64_t site);
__attribute__((visibility("hidden"))) void mpidbg_track_found(uint64_t site);

/* The cheap tier's limit: a contiguous send buffer up to this many bytes
 * is copied at the start and compared at completion (requests_track.c), also
 * when it is watched (a page the tracker gives up on stops watching it);
 * no comparison when the tracker reported it. */
#define MPIDBG_TR_SNAP_MAX 256
/* ... and one whose bytes on the first page of a stack buffer neither
 * the debug registers (more than they hold) nor page protection watch,
 * up to a page (else those bytes only): a copy is all that can see a
 * store there. */
#define MPIDBG_TR_SNAP_PAGE 4096

/* Counters, for docs/races.md and MPIDBG_RACE_STATS. */
enum mpidbg_tr_stat {
    MPIDBG_TRS_ADDED,        /* ranges watched */
    MPIDBG_TRS_SAMPLED_OUT,  /* operations the sampling policy skipped */
    MPIDBG_TRS_REFUSED,      /* ranges refused: not private writable memory, TLS, no room */
    MPIDBG_TRS_HOT_STACK,    /* stack buffers whose bytes on their first page were not watched (no debug register free) */
    MPIDBG_TRS_CMA,          /* receive ranges over 8 KiB not watched because UCX may use CMA */
    MPIDBG_TRS_MPROTECT,     /* mprotect calls */
    MPIDBG_TRS_LIB_FAULTS,   /* faults of the library (never reported) */
    MPIDBG_TRS_PROG_FAULTS,  /* program accesses to watched bytes (queued for a report) */
    MPIDBG_TRS_FALSE_HITS,   /* program accesses to other bytes of a watched page (stepped) */
    MPIDBG_TRS_GIVEUPS,      /* a page left open until the next MPI call after too many false hits */
    MPIDBG_TRS_LOST_PAGES,   /* a page left open until its ranges end after too many library faults */
    MPIDBG_TRS_EXACT_DROPS,  /* queued accesses that were not on a byte of the datatype after all */
    MPIDBG_TRS_EVENTS_LOST,  /* accesses not reported because the queue was full */
    MPIDBG_TRS_SNAPSHOTS,    /* send buffers copied by the cheap tier */
    MPIDBG_TRS_REPORTS,      /* findings reported */
    MPIDBG_TRS_ADD_NS,       /* with MPIDBG_RACE_STATS: time in mpidbg_track_add */
    MPIDBG_TRS_REMOVE_NS,    /* time in mpidbg_track_remove(_n) */
    MPIDBG_TRS_MAPS,         /* readings of /proc/self/maps */
    MPIDBG_TRS_HW_ARMS,      /* debug registers armed (a stack buffer's first-page bytes, up to 8 each) */
    MPIDBG_TRS_HW_TRAPS,     /* their traps (the library's and the program's) */
    MPIDBG_TRS_HW_FULL,      /* first-page bytes that needed more debug registers than were free */
    MPIDBG_TRS_HW_PREFIX,    /* first-page bytes too many for the registers: their first ones watched */
    MPIDBG_TRS_SYS_CALLS,    /* system calls and stdio calls that named a page in the page table (track_sys.c) */
    MPIDBG_TRS_SYS_OPENS,    /* pages opened (an mprotect) for such a call */
    MPIDBG_TRS_N
};
extern uint64_t mpidbg_track_stats[MPIDBG_TRS_N] __attribute__((visibility("hidden")));

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

/* ---- the Go side (track.go) ---- */

/* The exact bytes of count x type as at most MPIDBG_TR_BLOCKS strided
 * blocks of at most MPIDBG_TR_DIMS dimensions (datatype.Strided): the
 * byte at offset x from the buffer's start is data when, for some block,
 * x - off decomposes as sum(i_d * stride[d]) + r with 0 <= i_d < cnt[d]
 * and 0 <= r < len. */
#define MPIDBG_TR_BLOCKS 4
#define MPIDBG_TR_DIMS 4
struct mpidbg_tr_block {
    int64_t off, len;
    int32_t nd, pad;
    int64_t cnt[MPIDBG_TR_DIMS], stride[MPIDBG_TR_DIMS]; /* innermost first */
};
/* mpidbg_go_layout fills out with the blocks; returns their number, or
 * -1 when the model does not know the type or it needs more. */
extern int mpidbg_go_layout(uint64_t type, int64_t count, struct mpidbg_tr_block *out);

#endif
