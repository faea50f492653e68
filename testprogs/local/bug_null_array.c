// ranks: 2
//
// bug_null_array.c: the request array is allocated lazily when the first
// neighbour exchange is posted; this rank has no neighbours to exchange
// with in this phase, so the array is still NULL, but the wait uses the
// neighbour count computed earlier (2).
// Breaks MPI-4.1 §2.5.3 / §3.7.5: MPI_WAITALL reads count requests from
// array_of_requests.
// Expected: null-array at the MPI_Waitall (both ranks).
//
// MPICH rejects the call with MPI_ERR_ARG (the default handler would
// abort): MPI_ERRORS_RETURN keeps the job alive. No operation is pending.
#include <mpi.h>
#include <stdlib.h>

static MPI_Request *reqs; // allocated by post() on first use

static void post(int *buf, int peer, int nposted)
{
    if (reqs == NULL)
        reqs = malloc(2 * sizeof *reqs);
    MPI_Irecv(buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[nposted]);
}

int main(int argc, char **argv)
{
    int rank, buf = 0, exchange_now = 0;
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int nneighbours = 2;
    if (exchange_now)
        post(&buf, rank ^ 1, 0);
    // bug: waits on nneighbours requests although none was posted
    MPI_Waitall(nneighbours, reqs, st); // want "null-array"

    free(reqs);
    MPI_Finalize();
    return 0;
}
