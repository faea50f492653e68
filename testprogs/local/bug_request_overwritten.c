// ranks: 2
//
// bug_request_overwritten.c: rank 1 posts two receives into the same
// request variable and waits once; the first receive's request is lost.
// Breaks MPI-4.1 §3.7.3: every nonblocking operation must be completed;
// overwriting an active request loses it.
// Expected: request-overwritten at the second MPI_Irecv (rank 1), and
// request-never-completed for the first receive, which indeed is never
// completed: reported at MPI_Finalize against the line that started it.
//
// Natively the lost receive is matched by rank 0's first message and MPICH
// finalizes without complaint.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, a = 1, b = 2, ga = 0, gb = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(&ga, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r); // want "request-never-completed"
        MPI_Irecv(&gb, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r); // want "request-overwritten"
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (gb != 2)
            printf("rank 1: gb = %d\n", gb);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
