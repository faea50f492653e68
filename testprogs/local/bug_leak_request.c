// ranks: 2
//
// bug_leak_request.c: rank 0 sends three messages through a persistent
// send request and never frees it (rank 1 frees its persistent receive).
// Warns about MPI-4.1 §3.9: persistent requests are freed with
// MPI_REQUEST_FREE.
// Expected: leak-request (warning), reported at MPI_Finalize against the
// line that created the request (the MPI_Send_init, rank 0 only).
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, i, v = 0, sum = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0)
        MPI_Send_init(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); // want "leak-request"
    else
        MPI_Recv_init(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    for (i = 1; i <= 3; i++) {
        if (rank == 0)
            v = i;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        sum += v;
    }
    if (rank == 1)
        MPI_Request_free(&r);
    // bug: rank 0 does not free its request

    if (sum != 6)
        printf("rank %d: sum %d\n", rank, sum);
    MPI_Finalize();
    return 0;
}
