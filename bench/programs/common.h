/* Shared by the overhead benchmarks: timing and the one result line the
 * runner parses ("RESULT <name> <value> <unit>"). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median of n samples; sorts them */
static double median(double *v, int n)
{
    qsort(v, n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void result(const char *name, double value, const char *unit)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("RESULT %s %.1f %s\n", name, value, unit);
}
#endif
