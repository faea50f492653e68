// ranks: 2
// native[openmpi]: crashes
//
// bug_request_unknown.c: a request variable is initialised to 0, as if 0
// were MPI_REQUEST_NULL (it is not: in MPICH MPI_REQUEST_NULL is
// 0x2c000000). The receive is posted only when there is a left neighbour;
// rank 0 has none and waits on the 0.
// Breaks MPI-4.1 §3.7.3: completion calls take requests returned by
// nonblocking or persistent calls, or MPI_REQUEST_NULL.
// Expected: request-unknown at the MPI_Wait (rank 0 only).
//
// MPICH rejects rank 0's wait with MPI_ERR_REQUEST (the default handler
// would abort): MPI_ERRORS_RETURN keeps the job going. Open MPI follows
// the 0 as a pointer and dies of SIGSEGV; under mpidbg the shim refuses
// the call and returns MPI_ERR_REQUEST instead (shim/mpi_openmpi.h). Rank 1's receive is
// matched by rank 0's send.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, mine, got = -1;
    MPI_Request r = 0; // bug: should be MPI_REQUEST_NULL

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int left = rank - 1, right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    mine = rank + 1;
    if (left >= 0)
        MPI_Irecv(&got, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r);
    MPI_Send(&mine, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE); // want "request-unknown"

    if (rank == 1 && got != 1)
        printf("rank 1: got %d\n", got);
    MPI_Finalize();
    return 0;
}
