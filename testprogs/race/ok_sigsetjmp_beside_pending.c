// ranks: 2
//
// ok_sigsetjmp_beside_pending.c: a solver with a watchdog. Its state is
// one static structure: the jump buffer its watchdog returns to, then
// the halo receive buffer. Each step posts MPI_Irecv into the halo,
// sets the return point with sigsetjmp(env, 1), and runs a kernel that,
// when it runs too long (here: on every third step, by raise), is cut
// short by the SIGUSR1 handler's siglongjmp back to the return point;
// the step then posts its send and waits. After each jump the rank
// checks that SIGUSR1 is unblocked again.
// Follows MPI-4.1 §3.7.2: the halo is not touched before MPI_Wait; the
// jump buffer beside it is the program's; the handler calls no MPI.
// Correct: must produce no findings, and the signal mask must come back
// (sigsetjmp saves the mask through the kernel, which fails on a page
// the checker protects, and siglongjmp then leaves SIGUSR1 blocked).
#define _GNU_SOURCE
#include <mpi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

enum { N = 256, STEPS = 30 };

static struct {
    sigjmp_buf env;
    double halo[N];
} solver;

static volatile sig_atomic_t cut;

static void on_watchdog(int sig)
{
    (void)sig;
    cut++;
    siglongjmp(solver.env, 1);
}

static double kernel(int step)
{
    double s = 0;
    for (int i = 1; i < 20000; i++)
        s += 1.0 / (i + step);
    if (step % 3 == 0)
        raise(SIGUSR1); /* too long: the watchdog cuts it short */
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct sigaction sa = {0};
    sa.sa_handler = on_watchdog;
    sigaction(SIGUSR1, &sa, NULL);
    int left = (rank + size - 1) % size, right = (rank + 1) % size, ok = 1;
    double out[N];
    for (int step = 0; step < STEPS; step++) {
        MPI_Request r;
        MPI_Irecv(solver.halo, N, MPI_DOUBLE, left, step, MPI_COMM_WORLD, &r);
        volatile double result = 0;
        if (sigsetjmp(solver.env, 1) == 0) {
            result = kernel(step);
        } else {
            sigset_t now;
            sigprocmask(SIG_BLOCK, NULL, &now);
            if (sigismember(&now, SIGUSR1))
                ok = 0; /* the mask did not come back */
        }
        for (int i = 0; i < N; i++)
            out[i] = rank * 1000 + step + i + 0 * result;
        MPI_Send(out, N, MPI_DOUBLE, right, step, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (solver.halo[N - 1] != left * 1000 + step + N - 1)
            ok = 0;
    }
    ok &= cut == (STEPS + 2) / 3;
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Finalize();
    if (!all)
        return 1;
    if (rank == 0)
        printf("ok_sigsetjmp_beside_pending: OK\n");
    return 0;
}
