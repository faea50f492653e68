/*
 * mpidbg.h: what a program can tell mpidbg about itself.
 *
 * Under MPI_THREAD_MULTIPLE mpidbg orders the MPI calls of different
 * threads by the synchronisation between the threads that it sees:
 * pthread mutexes, condition variables, rwlocks, spin locks, barriers,
 * semaphores, thread creation and join, OpenMP regions, barriers,
 * critical sections and locks, and MPI's own messages and collectives.
 * A program whose threads synchronise some other way (an atomic flag, a
 * lock-free queue, a hand-written barrier) says so with the two calls
 * below, on the same address in both threads:
 *
 *     // thread 1                          // thread 2
 *     MPI_Put(...); MPI_Win_flush(...);    while (!atomic_load(&ready)) ;
 *     MPIDBG_HAPPENS_BEFORE(&ready);       MPIDBG_HAPPENS_AFTER(&ready);
 *     atomic_store(&ready, 1);             MPI_Put(...);
 *
 * Everything thread 1 did before MPIDBG_HAPPENS_BEFORE(p) happens before
 * everything thread 2 does after a MPIDBG_HAPPENS_AFTER(p) that runs
 * later. Without mpidbg (the shim not loaded) the macros do nothing:
 * the functions are weak, and their address is null.
 */
#ifndef MPIDBG_H
#define MPIDBG_H

#ifdef __cplusplus
extern "C" {
#endif

void mpidbg_happens_before(const volatile void *p) __attribute__((weak));
void mpidbg_happens_after(const volatile void *p) __attribute__((weak));

#ifdef __cplusplus
}
#endif

#define MPIDBG_HAPPENS_BEFORE(p)                                                                                       \
    do {                                                                                                               \
        if (mpidbg_happens_before)                                                                                     \
            mpidbg_happens_before(p);                                                                                  \
    } while (0)
#define MPIDBG_HAPPENS_AFTER(p)                                                                                        \
    do {                                                                                                               \
        if (mpidbg_happens_after)                                                                                      \
            mpidbg_happens_after(p);                                                                                   \
    } while (0)

#endif
