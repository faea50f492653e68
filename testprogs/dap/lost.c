/* lost.c: rank 1 starts a receive in a function of its own and never
 * completes it (request-never-completed, MPI-4.1 §11.2.2: all pending
 * communication must be completed before MPI_FINALIZE). mpidbg can tell
 * only at MPI_Finalize, after post() returned: the DAP tests check that
 * the stop says where it was found and where the request was started.
 * Run with 2 ranks. */
#include <mpi.h>
#include <stdio.h>

static void post(int *slot, MPI_Request *r)
{
    MPI_Irecv(slot, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, r); // SITE
}

int main(int argc, char **argv)
{
    int rank, v = 0, x = 1;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else
        post(&v, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize(); // FOUND
    printf("lost: rank %d done\n", rank);
    return 0;
}
