/* spin.c: each rank waits in a loop until a debugger sets done (or
 * about 60 s pass), for the DAP test of attaching to a running job
 * (dap/adapter_test.go, TestAttach). Correct: mpidbg finds nothing. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

volatile int done;

int main(int argc, char **argv)
{
    int rank, size, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 6000 && !done; i++)
        usleep(10000); // SPIN
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d: sum %d\n", rank, sum);
    MPI_Finalize();
    return 0;
}
