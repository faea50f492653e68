/* The start-up cost benchmark with a planted bug on every rank (bench/scale):
 * each rank commits a datatype and never frees it (MPI-4.1 §5.1.9), so that
 * mpidbg reports leak-type once per rank at MPI_Finalize and folds them into
 * one finding for all ranks. Each rank prints the moment it exits, as in
 * scale_init.c. */
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
    MPI_Datatype pair;
    MPI_Init(&argc, &argv);
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair); /* FAULT: never freed */
    MPI_Finalize();
    atexit(said_exit);
    return 0;
}
