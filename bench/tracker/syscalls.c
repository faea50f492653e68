/* What the tracker's wrappers of system calls and stdio (shim/track_sys.c,
 * shim/track_stdio.c, shim/track_sysmem.c) cost per call, in one MPI process (docs/races.md,
 * "System calls"). Not part of `make bench`:
 *
 *     mpicc.mpich -O2 -o /tmp/syscalls bench/tracker/syscalls.c
 *     /tmp/syscalls                                      natively
 *     bin/mpidbg run -n 1 /tmp/syscalls                  under mpidbg
 *
 * (the shim of an older commit with --shim, for the cost of the shim
 * without the wrappers). Each line is the median over 21 batches of the
 * thread's CPU time for one call, in three states of the tracker:
 *   idle     nothing pending: the wrappers' fast path
 *   pending  a receive pending on a heap page of its own: every call looks
 *            up the pages it names, none of them watched
 *   shared   the receive's page also holds the I/O buffer and the
 *            stream's buffer: a call opens it and protects it again, until
 *            the page's budget (32) leaves it open until the next MPI call
 *   shared+mpi  the same with an MPI_Iprobe after each call, which protects
 *            the page again: every call pays (the worst case; the
 *            Iprobe's own cost is subtracted)
 * The calls: write(2) and read(2) of 8 bytes on /dev/null and /dev/zero,
 * fputc, fwrite of 8 bytes and fprintf of a number to a fully buffered
 * stream on /dev/null, fstat(2) of /dev/null and poll(2) of it with no
 * wait, their structures on the shared page too.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"

enum { BATCHES = 21, PAGE = 4096 };

static double cpu(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static int wfd, rfd;
static FILE *f;
static char *iobuf;
static struct stat *st;
static struct pollfd *pfd;
static int probe; /* shared: an MPI call after each call */

static void poll_mpi(void)
{
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

static void op_none(long i) { (void)i; }
static void op_write(long i) { (void)i; if (write(wfd, iobuf, 8) != 8) abort(); }
static void op_read(long i) { (void)i; if (read(rfd, iobuf, 8) != 8) abort(); }
static void op_fputc(long i) { fputc('a' + (int)(i & 15), f); }
static void op_fwrite(long i) { (void)i; fwrite(iobuf, 1, 8, f); }
static void op_fprintf(long i) { fprintf(f, "%ld\n", i); }
static void op_fstat(long i) { (void)i; if (fstat(wfd, st) != 0) abort(); }
static void op_poll(long i) { (void)i; if (poll(pfd, 1, 0) != 1) abort(); }

/* per: the median time of one call of op, ns */
static double per(void (*op)(long), long n)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = cpu();
        for (long i = 0; i < n; i++) {
            op(i);
            if (probe)
                poll_mpi();
        }
        t[b] = (cpu() - t0) / n;
    }
    return median_of(t, BATCHES);
}

static void row(const char *state)
{
    long n = probe ? 2000 : 50000;
    double base = per(op_none, n); /* the loop, and in shared the Iprobe */
    printf("%-10s write %7.1f  read %7.1f  fputc %7.1f  fwrite %7.1f  fprintf %7.1f  fstat %7.1f  poll %7.1f  ns/call\n",
           state, per(op_write, n) - base, per(op_read, n) - base, per(op_fputc, n) - base, per(op_fwrite, n) - base,
           per(op_fprintf, n) - base, per(op_fstat, n) - base, per(op_poll, n) - base);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    wfd = open("/dev/null", O_WRONLY);
    rfd = open("/dev/zero", O_RDONLY);
    f = fopen("/dev/null", "w");
    char *raw = malloc(8 * PAGE);
    char *pg = (char *)(((uintptr_t)raw + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
    char *own = pg + 4 * PAGE; /* a page of its own for the first receive */
    /* the stream's buffer and the I/O buffer on the shared page */
    setvbuf(f, pg + 1024, _IOFBF, 2048);
    iobuf = pg + 256;
    st = (struct stat *)(pg + 320);
    pfd = (struct pollfd *)(pg + 768);
    *pfd = (struct pollfd){wfd, POLLOUT, 0};

    row("idle");

    double *x = (double *)own;
    MPI_Request r;
    MPI_Irecv(x, 8, MPI_DOUBLE, rank, 1, MPI_COMM_WORLD, &r);
    row("pending");
    double y[8] = {0};
    MPI_Send(y, 8, MPI_DOUBLE, rank, 1, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    MPI_Irecv(pg + 3072, 8, MPI_DOUBLE, rank, 2, MPI_COMM_WORLD, &r); /* on the shared page */
    row("shared");
    probe = 1;
    row("shared+mpi");
    probe = 0;
    MPI_Send(y, 8, MPI_DOUBLE, rank, 2, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    fclose(f);
    free(raw);
    MPI_Finalize();
    return 0;
}
