// ranks: 2
//
// bug_request_never_completed.c: rank 0 sends its result with MPI_Isend
// and never waits for (or tests, or frees) the request.
// Breaks MPI-4.1 §11.2.2 (and §3.7.3): all pending communication must be
// completed before MPI_FINALIZE.
// Expected: request-never-completed, reported at MPI_Finalize against the
// line that started the operation (the MPI_Isend, rank 0).
//
// The message is small (eager), so natively the data arrives and MPICH
// finalizes without complaint.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, result = 99, got = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Isend(&result, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); // want "request-never-completed"
        // bug: no MPI_Wait(&r, ...)
    } else {
        MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (got != 99)
            printf("rank 1: got %d\n", got);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
