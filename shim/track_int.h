/*
 * The access tracker's inside, shared by track.c (ranges, sampling,
 * reports), track_pages.c (the page table, protection, the memory map)
 * and track_fault.c (the signal handlers). Not an interface: track.h is.
 *
 * Concurrency: writers (add, remove, the exit path) hold tr_mu; the
 * signal handlers never lock and never allocate: they read the tables
 * with atomics and change only atomic fields, page protections and the
 * two lock-free rings. Whatever interleaving they meet, the worst
 * outcome is a page watched a little longer or shorter than it should be
 * (a missed report); a fault on a page the tracker knows, or knew before
 * the table's last rebuild, is never passed on to the next handler (that
 * would crash the program).
 *
 * A fault inside the SIGSEGV handler kills the process (the kernel
 * forces the default action), so the handlers touch only memory the
 * tracker never protects: these tables, the page table and the logs
 * (mappings of the tracker's own), the thread's TLS and signal stack. A
 * word an owner keeps (mpidbg_tr_what.tag, .stalled), which may share a
 * page with a watched buffer, goes through owner_load and owner_store
 * (track_fault.c). A range the handler uses is pinned (tr_pin), so that
 * its log and slot stay until the handler is done.
 */
#ifndef MPIDBG_TRACK_INT_H
#define MPIDBG_TRACK_INT_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "count.h"
#include "python.h"
#include "track.h"

#define TR_PAGE 4096ul
#define TR_PMASK (~(TR_PAGE - 1))

/* ---- ranges (track.c) ---- */
#define TR_MAX 4096 /* watched ranges at once */

enum { R_FREE = 0, R_ACTIVE, R_OFF };

/* What the tracker knows of whether MPI moved a range's data: it saw
 * nothing (the SyncChecker's started state), it saw the move (moved), or
 * the range's page was open during an MPI call, so MPI may have written
 * it unseen (unseen: the access is erroneous, right by chance or not). */
enum { TR_STARTED = 0, TR_MOVED, TR_UNSEEN };

struct tr_range {
    uint64_t lo, hi;   /* the bytes watched, page-trimmed (hot stack pages out) */
    uint64_t plo, phi; /* the pages whose counts include it: [plo, phi) */
    uint64_t base;     /* the segment's buffer address, blk's origin */
    int64_t slo, shi;  /* the segment's bounds as given */
    int32_t state;     /* atomic: R_* */
    int32_t mode;
    int32_t moved;     /* atomic: TR_* above */
    int32_t counted;   /* atomic: 1 while its pages' counts include it */
    uint32_t gen;
    int32_t nblk;      /* 0: every byte of [lo, hi) is data; > 0: blk; -1: check at report time */
    struct mpidbg_tr_what w;
    struct mpidbg_tr_block blk[MPIDBG_TR_BLOCKS];
    /* the bytes on a stack buffer's first page, watched by debug
     * registers (track_hw.c): which of its thread's set, and that set's
     * generation when armed */
    int16_t hw_set;
    uint8_t hw_mask;   /* atomic: the set's slots armed for it; 0 none */
    uint8_t hw_queued; /* atomic: stores its registers queued (a layout the blocks do not hold) */
    uint32_t hw_gen;
    /* times its pages gave up (FALSE_HIT_LIMIT false hits) while it was
     * pending; under tr_mu (track.c, "Backing off") */
    uint32_t giveups;
    /* log mode */
    struct mpidbg_tr_access *log;
    uint32_t logcap;
    uint32_t lognext;  /* atomic: entries claimed */
    int32_t loglost;   /* atomic */
    /* atomic: signal handlers using the range right now (tr_pin); whoever
     * frees it (release) waits for 0 before its log goes and its slot is
     * reused */
    int32_t users;
};

extern struct tr_range tr_ranges[TR_MAX] __attribute__((visibility("hidden")));
extern int tr_hwm __attribute__((visibility("hidden"))); /* slots in use are below it */
extern pthread_mutex_t tr_mu __attribute__((visibility("hidden")));

/* ---- pages (track_pages.c) ---- */
struct tr_page {
    uint64_t key;      /* the page's address; 0: empty slot (atomic) */
    int32_t n[4];      /* atomic: ranges on it, by mode (index 1..3) */
    int32_t orig;      /* its protection before the tracker touched it */
    int32_t cur;       /* the protection last set (atomic, a hint) */
    int32_t steppers;  /* atomic: threads stepping one instruction on it */
    int32_t giveup;    /* atomic: open until the next wrapper exit (false hits) */
    int32_t lost;      /* atomic: open until its ranges end (library faults) */
    int32_t hits;      /* atomic: false hits since it was last protected again */
    int32_t lib;       /* atomic: library faults on watched bytes since it became watched */
    int32_t libfalse;  /* atomic: library faults on other bytes since it became watched */
};

__attribute__((visibility("hidden"))) struct tr_page *tr_page_find(uint64_t page);        /* signal-safe */
__attribute__((visibility("hidden"))) struct tr_page *tr_page_get(uint64_t page, int orig); /* under tr_mu */
/* tr_pages_room: n more pages fit in the table (after a rebuild that
 * drops the pages nothing watches, when need be); under tr_mu. A range
 * asks for all its pages at once: one that cannot have them is refused
 * before it fills the table with pages it then leaves there. */
__attribute__((visibility("hidden"))) int tr_pages_room(uint64_t n);
__attribute__((visibility("hidden"))) int tr_page_want(const struct tr_page *p);           /* signal-safe */
/* tr_sync_page: the page holds a synchronisation object of the program,
 * never protected (track_sync.c); signal-safe. */
__attribute__((visibility("hidden"))) int tr_sync_page(uint64_t page);
__attribute__((visibility("hidden"))) int tr_page_busy(const struct tr_page *p);           /* a range is on it */
/* tr_holders: while it is not 0, every page of the table has its
 * original protection (tr_page_want): code that runs with every signal
 * blocked, or in a child that shares the memory, may touch them (a
 * thread that ends, track_thread_end.c; a process being started,
 * track_spawn.c); atomic. tr_hold adds d and sets the pages' protection
 * when the count goes from 0 or to 0; under tr_mu. tr_hold_settled: no
 * holder, and no change being applied (a thread that saw a holder go
 * waits for tr_mu before it counts on its pages being watched). */
extern int tr_holders __attribute__((visibility("hidden")));
__attribute__((visibility("hidden"))) void tr_hold(int d);
__attribute__((visibility("hidden"))) int tr_hold_settled(void);
/* tr_let_go_all gives every page of the table its original protection,
 * without the lock: in a child process after fork, where the tracker
 * stops */
__attribute__((visibility("hidden"))) void tr_let_go_all(void);
/* tr_altstacks_known: the alternate signal stacks the program set up
 * before the tracker started are never protected (track_sigmask.c) */
__attribute__((visibility("hidden"))) void tr_altstacks_known(void);
/* tr_spawn_init: a child made by fork lets go of every page
 * (track_spawn.c); at the tracker's start */
__attribute__((visibility("hidden"))) void tr_spawn_init(void);
/* tr_ending_sweep, at a wrapper exit, drops the ending threads that are
 * gone (track_thread_end.c) */
__attribute__((visibility("hidden"))) void tr_ending_sweep(void);
/* tr_apply sets the protection of the pages [lo, hi) to what their
 * counts ask, one mprotect per run of pages that changes; signal-safe. */
__attribute__((visibility("hidden"))) void tr_apply(uint64_t lo, uint64_t hi, int force);
/* tr_update adds d to the mode's counts of the pages [lo, hi), then sets
 * their protection as tr_apply does, in one pass (force < 0: counts
 * only, and a d < 0 leaves tr_live to the caller's tr_live_drop once it
 * has applied the pages); signal-safe. */
__attribute__((visibility("hidden"))) void tr_update(uint64_t lo, uint64_t hi, int mode, int d, int force);
__attribute__((visibility("hidden"))) void tr_live_drop(int n);
__attribute__((visibility("hidden"))) void tr_apply_all(void);                             /* under tr_mu */
/* tr_orig returns the protection of a page the tracker may watch (a
 * private writable mapping; shared_ok: a shared one too, for log mode,
 * where only this process's view of the page is protected and nothing
 * is reported from it), -1 when it may not, and in *until where the
 * pages with the same answer end; under tr_mu. */
__attribute__((visibility("hidden"))) int tr_orig(uint64_t page, uint64_t *until, int shared_ok);
/* tr_shared says whether every page of [lo, hi) lies in a shared
 * writable mapping (never the TLS); under tr_mu. */
__attribute__((visibility("hidden"))) int tr_shared(uint64_t lo, uint64_t hi);
/* tr_stack_like: a lies on a thread's stack by the look of the memory
 * map (the main thread's, or an anonymous mapping above a guard, as
 * glibc makes them); under tr_mu */
__attribute__((visibility("hidden"))) int tr_stack_like(uint64_t a);
__attribute__((visibility("hidden"))) void tr_maps_stale(void);
/* tr_page_was: the page was in the table before its last rebuild (it
 * left, its protection given back); *orig its protection then. 1 yes, 0
 * no, -1 cannot tell (a rebuild is under way); signal-safe. */
__attribute__((visibility("hidden"))) int tr_page_was(uint64_t page, int *orig);
/* tr_mprotect is mprotect for everything the tracker protects or opens:
 * it counts the change in tr_pgen, which the handler reads to tell a
 * fault the tracker may have caused from one it cannot have; signal-safe. */
__attribute__((visibility("hidden"))) int tr_mprotect(uint64_t lo, uint64_t len, int prot);
extern uint64_t tr_pgen __attribute__((visibility("hidden")));
/* tr_reprotected: the program set the protection of [lo, hi) to prot
 * itself: the pages of the table there take it as their original one,
 * and get what they should have again (a watched page keeps being
 * watched); under tr_mu. */
__attribute__((visibility("hidden"))) void tr_reprotected(uint64_t lo, uint64_t hi, int prot);
__attribute__((visibility("hidden"))) int tr_pages_init(void);

/* ---- library code (track_fault.c) ---- */
__attribute__((visibility("hidden"))) int tr_pc_is_lib(uint64_t pc);
__attribute__((visibility("hidden"))) int tr_pc_is_libc(uint64_t pc);
__attribute__((visibility("hidden"))) void tr_faults_init(void);
/* tr_handlers_ours: our SIGSEGV handler is still the installed one (a
 * program may install its own after MPI_Init) */
__attribute__((visibility("hidden"))) int tr_handlers_ours(void);
/* tr_progress: this thread is in ordinary code again (a wrapper exit) */
__attribute__((visibility("hidden"))) void tr_progress(void);
__attribute__((visibility("hidden"))) void tr_altstack(void);

/* ---- rings the handlers fill (track.c) ---- */
#define TR_EVENTS 128
#define TR_TAKE 16 /* events taken from the ring at a time (drain) */
struct tr_event {
    uint64_t seq;      /* index + 1 when written (atomic) */
    uint64_t pc, addr, ra;
    uint64_t base;
    int64_t slo, shi;
    int32_t write, moved, nblk, mode;
    struct mpidbg_tr_what w;
    int32_t npy;       /* a Python program's frames at the access, innermost first (python.c), 0 none */
    uint32_t pyoff[MPIDBG_PY_FRAMES];
    uint64_t pycode[MPIDBG_PY_FRAMES];
};

#define TR_OPENS 512
struct tr_open {
    uint64_t seq;
    uint64_t lo, hi;   /* pages opened until the next wrapper exit */
    int32_t false_hits; /* opened after FALSE_HIT_LIMIT false hits (the ranges' sites pay) */
    int32_t exits;      /* wrapper exits to let pass before protecting them again */
};

/* tr_string_call: the call that returns to ra called one of libc's
 * string functions, whose vector loads read past the string's bytes
 * (track_strings.c); signal-safe, after tr_strings_init. */
__attribute__((visibility("hidden"))) int tr_string_call(uint64_t ra);
__attribute__((visibility("hidden"))) void tr_strings_init(void);
/* tr_peek copies n bytes at a through the kernel, which answers EFAULT
 * instead of faulting on a page the tracker protects; signal-safe. */
__attribute__((visibility("hidden"))) int tr_peek(uint64_t a, void *out, size_t n);
__attribute__((visibility("hidden"))) void tr_queue_event(const struct tr_range *r, uint64_t pc, uint64_t addr,
                                                         uint64_t ra, int write, int moved);
__attribute__((visibility("hidden"))) void tr_queue_open(uint64_t lo, uint64_t hi, int false_hits); /* marks them unseen (tr_unseen) */
/* tr_unseen: MPI's writes to [lo, hi) go unseen from now on; signal-safe */
__attribute__((visibility("hidden"))) void tr_unseen(uint64_t lo, uint64_t hi);
/* tr_program_access: the program touched byte at of a pinned range at pc
 * (ra: the program's call of the libc function at pc, or 0): the first
 * one reports it and takes the range off its pages (returns 1); for the
 * fault handler and the system call wrappers (track_sys.c); signal-safe */
__attribute__((visibility("hidden"))) int tr_program_access(struct tr_range *r, uint64_t pc, uint64_t at, uint64_t ra,
                                                            int store);
/* tr_log_slot takes an entry of a pinned log-mode range's log, or says
 * the log is full (loglost, and the owner's stalled flag) with -1;
 * tr_log_fill fills it, the owner's tag read through owner_load (its
 * page may be protected); signal-safe */
__attribute__((visibility("hidden"))) int tr_log_slot(struct tr_range *r);
__attribute__((visibility("hidden"))) void tr_log_fill(struct tr_range *r, int i, uint64_t addr, uint64_t pc,
                                                      int store);
__attribute__((visibility("hidden"))) int tr_in_range(const struct tr_range *r, uint64_t addr); /* signal-safe */
/* tr_in_data: addr is a byte of the range's datatype, wherever it is
 * watched (pages or debug registers); signal-safe */
__attribute__((visibility("hidden"))) int tr_in_data(const struct tr_range *r, uint64_t addr);

/* ---- debug registers (track_hw.c) ---- */
#define TR_HW_SLOTS 4 /* x86-64: DR0-DR3 */
#ifdef TRAP_PERF
#define TR_TRAP_PERF TRAP_PERF
#else
#define TR_TRAP_PERF 6 /* si_code of a perf event's SIGTRAP (Linux 5.13) */
#endif
__attribute__((visibility("hidden"))) void tr_hw_init(void); /* after the handlers are installed */
/* tr_hw_add watches the data bytes of r in [lo, hi) with this thread's
 * debug registers (the range is R_ACTIVE in slot); 1 when they are
 * watched (or none is data); 2 when only their first 16 bytes are, for
 * more than the registers hold; 0 when nothing is watched (no register
 * free, the tier off); under tr_mu */
__attribute__((visibility("hidden"))) int tr_hw_add(struct tr_range *r, int slot, uint64_t lo, uint64_t hi);
/* tr_hw_remove disarms them; from any thread, under tr_mu */
__attribute__((visibility("hidden"))) void tr_hw_remove(struct tr_range *r);
/* tr_hw_trap handles a SIGTRAP of our debug registers (1), or leaves it
 * to the caller (0); signal-safe */
__attribute__((visibility("hidden"))) int tr_hw_trap(siginfo_t *si, void *ctx);

/* tr_pin makes a range the handler found safe to use until tr_unpin: 1
 * when it is still R_ACTIVE (then it stays in its slot, with its log),
 * 0 when it went meanwhile; signal-safe. */
static inline int tr_pin(struct tr_range *r)
{
    __atomic_add_fetch(&r->users, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&r->state, __ATOMIC_SEQ_CST) == R_ACTIVE)
        return 1;
    __atomic_sub_fetch(&r->users, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static inline void tr_unpin(struct tr_range *r)
{
    __atomic_sub_fetch(&r->users, 1, __ATOMIC_RELEASE);
}

static inline void tr_stat(int i)
{
    /* counted on every sampled-out call; a lost count only changes
     * MPIDBG_RACE_STATS's numbers */
    (void)mpidbg_count(&mpidbg_track_stats[i]);
}

/* ---- system calls given memory on watched pages (track_sys.c) ----
 * The kernel answers EFAULT on a page the tracker protects instead of
 * faulting, so a wrapper of a call that hands user memory to the kernel
 * opens the pages under that memory for the call:
 *
 *     if (!tr_sys_any()) return real(...);      the fast path
 *     tr_sys_begin(&s, ra);
 *     do { tr_sys_open(&s, buf, n); rc = real(...); } while (tr_sys_again(&s, rc == -1, -1));
 *     tr_sys_done(&s, buf, moved, store);        the bytes the call moved
 *     tr_sys_end(&s);
 *
 * tr_live counts the ranges that have pages (tr_update keeps it): 0 when
 * no page is protected for a range. errno survives every call here. */
extern int tr_live __attribute__((visibility("hidden")));
static inline int tr_sys_any(void)
{
    return __builtin_expect(__atomic_load_n(&tr_live, __ATOMIC_RELAXED) != 0, 0);
}
#define TR_SYS_PAGES 16
struct tr_sys {
    uint64_t ra;   /* the wrapper's return address: the call's site */
    int lib;       /* the caller is MPI or the shim (inside a wrapper, or its code); -1 not known yet */
    int seen;      /* some page the call names is in the page table */
    int force;     /* the retry after an EFAULT: set protections whatever cur says */
    int n;
    uint64_t page[TR_SYS_PAGES]; /* pages held open (steppers) */
};
__attribute__((visibility("hidden"))) void tr_sys_begin(struct tr_sys *s, const void *ra);
/* tr_sys_open: the kernel may read or write [p, p + n) during the call */
__attribute__((visibility("hidden"))) void tr_sys_open(struct tr_sys *s, const void *p, size_t n);
/* tr_sys_open_str opens the pages of a string as far as its end and returns its length */
__attribute__((visibility("hidden"))) size_t tr_sys_open_str(struct tr_sys *s, const char *str);
/* tr_sys_again: the call failed with EFAULT although the pages were
 * opened (another thread protected one meanwhile): open them again,
 * forcing the protection, and call once more; fd >= 0: a read from fd,
 * made again only when its failure consumed nothing (not a datagram
 * socket or a terminal) */
__attribute__((visibility("hidden"))) int tr_sys_again(struct tr_sys *s, int failed, int fd);
/* fd for a call that must not be made again, whatever its failure: one
 * that may have had its effect when it fails copying out its result
 * (mkstemp replaced the XXXXXX), or that waits (a second select waits its
 * time out again) */
#define TR_SYS_ONCE (-2)
/* tr_sys_redo: a call made on the fast path failed with EFAULT and some
 * range has pages now (one came between the check and the call): make
 * it again through the slow path; fd as for tr_sys_again */
__attribute__((visibility("hidden"))) int tr_sys_redo(int fd);
/* tr_sys_done: the call moved [p, p + n), stored into it (store) or
 * loaded from it: the program's access to a pending operation's bytes
 * is reported at the call, as a fault would be; the library's marks a
 * receive moved */
__attribute__((visibility("hidden"))) void tr_sys_done(struct tr_sys *s, const void *p, size_t n, int store);
/* tr_sys_copy_in copies n bytes of caller memory a wrapper must look
 * into (a message header, an iovec array, an address length) without
 * faulting where it is not readable: an invalid pointer is the kernel's
 * EFAULT to give, not a crash in the wrapper; 0 when it cannot */
__attribute__((visibility("hidden"))) int tr_sys_copy_in(void *out, const void *p, size_t n);
/* tr_sys_open_addr opens an address and the length the call reads and
 * writes back (getsockname, recvfrom) and returns that length */
__attribute__((visibility("hidden"))) size_t tr_sys_open_addr(struct tr_sys *s, const void *addr, const void *len);
/* tr_sys_end protects again what tr_sys_open opened */
__attribute__((visibility("hidden"))) void tr_sys_end(struct tr_sys *s);
/* tr_sys_cleanup is tr_sys_end for pthread_cleanup_push: a thread
 * cancelled inside the call lets go of its pages */
__attribute__((visibility("hidden"))) void tr_sys_cleanup(void *s);

/* TR_SYS_SLOW_NEXT begins NAME_slow: the next definition, looked up if
 * need be (FAIL, with ENOSYS, when there is none), and the call made
 * directly when no range has pages */
#define TR_SYS_SLOW_NEXT(name, fail, ...)                                                            \
    __typeof__(name) *r = (__typeof__(name) *)mpidbg_next_symbol(&next_##name, #name);             \
    if (!r) {                                                                                       \
        errno = ENOSYS;                                                                             \
        return fail;                                                                                \
    }                                                                                               \
    if (!tr_sys_any())                                                                              \
        return r(__VA_ARGS__)

/* TR_SYS_CALL ends NAME_slow (ra its return-address parameter): the
 * call with the memory OPEN names held open, made once more after an
 * EFAULT the tracker may have caused (IN as for tr_sys_again), then DONE
 * with rc set and ok when the call succeeded (what it read it read either
 * way, what it wrote only then). A thread cancelled in the call (a read
 * is a cancellation point) closes the pages on its way out. */
#define TR_SYS_CALL(ret, fail, in, call, OPEN, DONE)                                                 \
    do {                                                                                            \
        struct tr_sys s;                                                                            \
        ret rc;                                                                                     \
        tr_sys_begin(&s, ra);                                                                       \
        pthread_cleanup_push(tr_sys_cleanup, &s);                                                   \
        do {                                                                                        \
            OPEN;                                                                                   \
            rc = call;                                                                              \
        } while (tr_sys_again(&s, rc == (fail), in));                                               \
        int ok = rc != (fail);                                                                      \
        (void)ok;                                                                                   \
        DONE;                                                                                       \
        pthread_cleanup_pop(1);                                                                     \
        return rc;                                                                                  \
    } while (0)

/* TR_SYS_FAST is a wrapper's body: the next definition (the cache
 * next_NAME, looked up when the shim is loaded or by NAME_slow at the
 * first call) when no range has pages; NAME_slow(return address, ...)
 * otherwise, and when the call failed (FAIL) with EFAULT because a range
 * came meanwhile (another thread's, between the check and the call). IN
 * as for tr_sys_again. */
#define TR_SYS_FAST(ret, name, fail, in, ...)                                                        \
    __typeof__(name) *r = (__typeof__(name) *)__atomic_load_n(&next_##name, __ATOMIC_ACQUIRE);     \
    if (__builtin_expect(r != NULL, 1) && !tr_sys_any()) {                                          \
        ret rc = r(__VA_ARGS__);                                                                    \
        if (__builtin_expect(rc != (fail), 1) || !tr_sys_redo(in))                                  \
            return rc;                                                                              \
    }                                                                                               \
    return name##_slow((const void *)__builtin_return_address(0), __VA_ARGS__)

#endif
