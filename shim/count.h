/*
 * Counters the hot paths bump: the post order of requests, the tracker's
 * per-site samples and its statistics.
 */
#ifndef MPIDBG_COUNT_H
#define MPIDBG_COUNT_H

#include <stdint.h>

/* MPI_THREAD_MULTIPLE (shim.h): MPI is called from threads at once */
extern int mpidbg_mt __attribute__((visibility("hidden")));

/* mpidbg_count adds one to *c and returns the value before. A locked add
 * waits for every store before it to complete (the record the caller has
 * just written), so it is taken only when threads call MPI at once; with
 * one thread in MPI it is a load and a store, and a count made at the
 * same moment outside MPI (a fault handler, an OpenMP worker's wrapped
 * system call) may be lost, which each caller says it can afford. */
static inline uint64_t mpidbg_count(uint64_t *c)
{
    if (mpidbg_mt)
        return __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
    uint64_t n = __atomic_load_n(c, __ATOMIC_RELAXED);
    __atomic_store_n(c, n + 1, __ATOMIC_RELAXED);
    return n;
}

#endif
