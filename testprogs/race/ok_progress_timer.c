// ranks: 2
//
// ok_progress_timer.c: a solver with a progress timer. An interval timer
// (SIGALRM every 200 µs) counts ticks and accumulates a heartbeat in
// static variables that share a page with a static receive buffer, while
// each step exchanges a 16 KiB halo that lives in main's frame and is
// posted by a packing routine with 12 KiB of scratch space of its own
// (so the halo's first page lies far above the stack pointer when the
// receive starts, and main's later calls run on that page). Between
// posting and MPI_Waitall the ranks compute in a recursive kernel whose
// frames land on that page, and the timer fires throughout: its handler
// runs on the program's stack, and now and then while mpidbg steps an
// access beside a watched buffer.
// Follows MPI-4.1 §3.7.2: no pending buffer is touched before
// MPI_Waitall; the handler touches only its own variables.
// Correct: must produce no findings, and must not die of a signal (a
// signal frame written to a protected stack page, or a single step
// trapped in a handler that blocks SIGTRAP, would end the process).
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

enum { H = 2048, G = 512, STEPS = 150 };

static double ghost[G];                 /* a static receive buffer */
static volatile sig_atomic_t ticks;     /* the timer's, beside it */
static volatile double heartbeat;

static void on_alarm(int sig)
{
    (void)sig;
    ticks++;
    heartbeat += 0.5;
}

/* pack the boundary through a scratch area and post the exchange of the
 * halo, which lives in the caller's frame */
static void __attribute__((noinline)) post_halo(double *halo, double *out, int peer, int step, MPI_Request *req)
{
    double scratch[1536];
    for (int i = 0; i < 1536; i++)
        scratch[i] = step + i;
    for (int i = 0; i < H; i++)
        out[i] = scratch[i % 1536] + (double)(i / 1536) * 1536;
    MPI_Irecv(halo, H, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(out, H, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &req[1]);
}

static double __attribute__((noinline)) kernel(const double *a, int n, int depth)
{
    double local[64];
    for (int i = 0; i < 64; i++)
        local[i] = a[i % n] * 0.5;
    double s = 0;
    for (int i = 0; i < 64; i++)
        s += local[i];
    return depth > 0 ? s + 0.25 * kernel(a, n, depth - 1) : s;
}

int main(int argc, char **argv)
{
    int rank, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 200}, {0, 200}};
    setitimer(ITIMER_REAL, &it, NULL);

    double out[H], halo[H], field[256];
    for (int i = 0; i < 256; i++)
        field[i] = i;
    double acc = 0;
    for (int step = 0; step < STEPS; step++) {
        MPI_Request req[4];
        post_halo(halo, out, peer, step, req);
        MPI_Irecv(ghost, G, MPI_DOUBLE, peer, 8, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(field, 256, MPI_DOUBLE, peer, 8, MPI_COMM_WORLD, &req[3]);
        for (int k = 0; k < 20; k++)
            acc += kernel(field, 256, 8);
        MPI_Status st[4];
        MPI_Waitall(4, req, st);
        for (int i = 0; i < H; i++)
            if (halo[i] != step + i) {
                errors++;
                break;
            }
        for (int i = 0; i < 256; i++)
            if (ghost[i] != i) {
                errors++;
                break;
            }
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0 && acc > 0 && ticks > 0) /* the timer fired while the halos were pending */
        printf("ok_progress_timer: OK\n");
    MPI_Finalize();
    return all != 0;
}
