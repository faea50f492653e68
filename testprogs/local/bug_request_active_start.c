// ranks: 2
// native[openmpi]: hangs
//
// bug_request_active_start.c: a persistent receive is started, and started
// again (a retry path) before it has completed.
// Breaks MPI-4.1 §3.9: it is erroneous to call MPI_START for a request that
// is already active.
// Expected: request-active-start at the second MPI_Start (both ranks),
// with the first MPI_Start, which made the request active, as the related
// place.
//
// MPICH rejects the second start (MPI_ERR_REQUEST, the default handler
// would abort): MPI_ERRORS_RETURN keeps the job going, and the first start
// completes with the peer's one message. Open MPI 4.1 posts a second
// receive instead and may wait for ever on it, natively; under mpidbg the
// shim rejects the second start as MPICH does (shim/finding.c).
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine, got = -1;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    mine = 10 + rank;
    MPI_Recv_init(&got, 1, MPI_INT, rank ^ 1, 0, MPI_COMM_WORLD, &r);
    MPI_Start(&r); // related "request-active-start"
    MPI_Start(&r); // want "request-active-start"
    MPI_Send(&mine, 1, MPI_INT, rank ^ 1, 0, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);

    if (got != 10 + (rank ^ 1))
        printf("rank %d: got %d\n", rank, got);
    MPI_Finalize();
    return 0;
}
