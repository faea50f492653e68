/* The clock and the median the tracker's micro-benchmarks share. */
#ifndef BENCH_TRACKER_MEASURE_H
#define BENCH_TRACKER_MEASURE_H

#include <stdlib.h>
#include <time.h>

/* clock_ns: the clock's time in nanoseconds (CLOCK_MONOTONIC for wall
 * time, CLOCK_THREAD_CPUTIME_ID for the thread's CPU time) */
static inline double clock_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static inline int measure_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median of the n values of v, which it sorts */
static inline double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, measure_cmp);
    return v[n / 2];
}

#endif
