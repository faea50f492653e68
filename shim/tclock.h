/*
 * Thread clocks: which events of this process's threads happen before
 * which (tclock.c).
 *
 * Under MPI_THREAD_MULTIPLE two MPI calls of different threads are
 * "logically concurrent, even if one physically precedes the other"
 * (MPI-4.1 §3.5): only the program's synchronisation between the threads
 * orders them. Each thread that makes a timed event (an RMA operation,
 * the flush that completes it) gets a slot and a vector clock over the
 * slots; the synchronisation the shim sees carries the clocks:
 *   - pthread mutexes, condition variables, rwlocks, spin locks,
 *     barriers, semaphores, thread creation and join (track_sync.c,
 *     threads.c);
 *   - OpenMP parallel regions, barriers (explicit and implicit),
 *     critical sections, omp locks, ordered sections (omp.c);
 *   - MPI itself, conservatively: a thread that completes a receive or a
 *     collective learns everything any thread of the process had sent
 *     before (mpidbg_tc_import).
 * Synchronisation through atomic variables is invisible; a program that
 * orders threads that way can say so with mpidbg_happens_before/after
 * (include/mpidbg.h). OpenMP tasks are not modelled: a program that makes
 * one switches the thread clocks off (mpidbg_tc_give_up), and every
 * thread is ordered by time again.
 *
 * Below MPI_THREAD_MULTIPLE nothing here runs (mpidbg_tc_on stays 0).
 */
#ifndef MPIDBG_TCLOCK_H
#define MPIDBG_TCLOCK_H

#include <stdint.h>

#define MPIDBG_TC_HIDDEN __attribute__((visibility("hidden")))

/* Slots per process: the 16th thread that makes a timed event and every
 * later one share the last slot (they look ordered among themselves). */
#define MPIDBG_TC_SLOTS 16

/* A vector clock: c[s] is the count of slot s's events known; lamport
 * the highest Lamport clock (mpidbg_xr_clock) the thread imported,
 * itself or through the threads it synchronised with: what it knows of
 * other processes. */
struct mpidbg_tc_vc {
    uint32_t c[MPIDBG_TC_SLOTS];
    uint64_t lamport;
};

/* 1 while the thread clocks run: MPI_THREAD_MULTIPLE, and no construct
 * they cannot follow seen. */
extern int mpidbg_tc_on MPIDBG_TC_HIDDEN;
static inline int mpidbg_tc_running(void)
{
    return __atomic_load_n(&mpidbg_tc_on, __ATOMIC_RELAXED);
}

/* mpidbg_tc_start turns the clocks on (after MPI_Init_thread gave
 * MPI_THREAD_MULTIPLE). */
void mpidbg_tc_start(void) MPIDBG_TC_HIDDEN;

/* mpidbg_tc_give_up turns them off for good: the program used
 * synchronisation they cannot follow (a load when they are off). */
void mpidbg_tc_give_up(const char *why) MPIDBG_TC_HIDDEN;
extern const char *mpidbg_tc_why_off MPIDBG_TC_HIDDEN; /* why, once given up (for a debugger) */

/* mpidbg_tc_edges says whether the calling thread's synchronisation
 * counts: clocks on and the program's own call, not the MPI library's
 * from inside a wrapper. */
int mpidbg_tc_edges(void) MPIDBG_TC_HIDDEN;

/* mpidbg_tc_edge_from: the same for a call made from return address ra,
 * which must not be in the shim or in a library that serves MPI (its
 * memory hooks take locks in the program's threads, outside any MPI
 * call: they order nothing of the program's). */
int mpidbg_tc_edge_from(const void *ra) MPIDBG_TC_HIDDEN;

/* mpidbg_tc_tick makes a new event of the calling thread: its slot in
 * *slot, its count returned (from 1). */
uint32_t mpidbg_tc_tick(uint32_t *slot) MPIDBG_TC_HIDDEN;

/* mpidbg_tc_knows says whether the calling thread knows event
 * (slot, count): it happened before what the thread does now. */
int mpidbg_tc_knows(uint32_t slot, uint32_t count) MPIDBG_TC_HIDDEN;

/* The calling thread's clock, copied out and merged in. */
void mpidbg_tc_snapshot(struct mpidbg_tc_vc *out) MPIDBG_TC_HIDDEN;
void mpidbg_tc_learn(const struct mpidbg_tc_vc *in) MPIDBG_TC_HIDDEN;


/* Release and acquire through a synchronisation object named by its
 * address: what the releasing thread knew, the acquiring one learns. */
void mpidbg_tc_release(const void *obj) MPIDBG_TC_HIDDEN;
void mpidbg_tc_acquire(const void *obj) MPIDBG_TC_HIDDEN;
/* The same for the program's own synchronisation calls: nothing unless
 * mpidbg_tc_edges. */
void mpidbg_tc_sync_release(const void *obj) MPIDBG_TC_HIDDEN;
void mpidbg_tc_sync_acquire(const void *obj) MPIDBG_TC_HIDDEN;

/* A group of threads that all wait for each other (an OpenMP team's
 * barrier, a pthread barrier): each arrival merges its clock into the
 * round's, each departure learns it. Rounds alternate between two
 * clocks, so a fast thread's next round never leaks into a slow one's
 * departure. Zero-initialised. */
struct mpidbg_tc_group {
    struct mpidbg_tc_vc round[2];
    int lock;
};
void mpidbg_tc_arrive(struct mpidbg_tc_group *g, unsigned round) MPIDBG_TC_HIDDEN;
void mpidbg_tc_depart(struct mpidbg_tc_group *g, unsigned round) MPIDBG_TC_HIDDEN;

/* mpidbg_tc_publish notes that the calling thread sent its knowledge out
 * of the process with Lamport clock value clock (a shadow message, a
 * collective's contribution, an RMA exchange). */
void mpidbg_tc_publish(uint64_t clock) MPIDBG_TC_HIDDEN;

/* mpidbg_tc_import: the calling thread completed a receive or a
 * collective whose Lamport clock was clock, and learns whatever the
 * process had published. */
void mpidbg_tc_import(uint64_t clock) MPIDBG_TC_HIDDEN;

/* mpidbg_tc_start_clock: the Lamport clock an event of the calling
 * thread starts at for other processes: its own, or the process's while
 * a receive may have paired with another thread's shadow
 * (mpidbg_xr_unsure: the thread's own may be too low). Callable from a
 * signal handler. */
uint64_t mpidbg_tc_start_clock(void) MPIDBG_TC_HIDDEN;

/* mpidbg_tc_published returns the least Lamport value with which a
 * thread that knew event (slot, count) published, UINT64_MAX when none
 * did yet: nothing another process does is after the event unless its
 * clock is above that. */
uint64_t mpidbg_tc_published(uint32_t slot, uint32_t count) MPIDBG_TC_HIDDEN;

#endif
