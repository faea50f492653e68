/* deadlock.c: every rank receives from its right neighbour before it
 * sends to its left one, so all wait in MPI_Recv forever (a cycle of
 * receives: deadlock on any MPI). For the DAP test that a deadlock stops
 * every rank at its blocked call. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, in = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Recv(&in, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // BLOCKED
    MPI_Send(&rank, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD);
    printf("rank %d got %d\n", rank, in);
    MPI_Finalize();
    return 0;
}
