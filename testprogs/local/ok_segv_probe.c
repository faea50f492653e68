// ranks: 2
//
// ok_segv_probe.c: a program that probes whether addresses can be read,
// as memory checkers do: a SIGSEGV handler installed before MPI_Init
// returns to the probe with siglongjmp, and the probe says "not
// readable". The fault is handled and the ranks go on, probe again after
// the first (the handler must still be the program's), and finalize. No
// rank dies.
// Correct: must produce no findings.
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf probe_env;

static void on_segv(int sig)
{
    (void)sig;
    siglongjmp(probe_env, 1);
}

/* readable says whether p can be read */
static int readable(volatile const char *p)
{
    if (sigsetjmp(probe_env, 1))
        return 0;
    (void)*p;
    return 1;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);

    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const char here = 1;
    int r = 0;
    for (int i = 0; i < 3; i++) /* probe more than once: the handler stays */
        r += readable((const char *)16 + i) + readable(&here);
    int s = 0;
    MPI_Allreduce(&r, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0 && s == 3 * size)
        printf("ok_segv_probe: OK\n");
    MPI_Finalize();
    return s == 3 * size ? 0 : 1;
}
