/* The start-up cost benchmark (bench/scale): MPI_Init and MPI_Finalize and
 * nothing else, so that a run's wall time is mpiexec's, MPI's and, under
 * mpidbg, the shim's and the collector's fixed costs. Each rank prints the
 * moment it exits (CLOCK_REALTIME, nanoseconds), so that the runner can
 * tell how long the report took after the last rank was gone. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void said_exit(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    printf("EXIT %lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    atexit(said_exit);
    return 0;
}
