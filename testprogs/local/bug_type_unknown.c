// ranks: 2
//
// bug_type_unknown.c: a halo descriptor is allocated with calloc and its
// datatype member is never set, so it holds 0, which in MPICH is not a
// datatype handle (MPI_DATATYPE_NULL is 0x0c000000).
// Breaks MPI-4.1 §2.5.1: handles must refer to existing objects.
// Expected: type-unknown at the MPI_Sendrecv (both ranks).
//
// MPICH rejects the call with MPI_ERR_TYPE (the default handler would
// abort); MPI_ERRORS_RETURN keeps the job going, and nothing is sent.
#include <mpi.h>
#include <stdlib.h>

struct halo {
    MPI_Datatype face; // bug: never constructed
    int count;
};

int main(int argc, char **argv)
{
    int rank, out[4] = {1, 2, 3, 4}, in[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    struct halo *h = calloc(1, sizeof *h);
    h->count = 1;
    MPI_Sendrecv(out, h->count, h->face, rank ^ 1, 0, in, h->count, h->face, rank ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-unknown"

    free(h);
    MPI_Finalize();
    return 0;
}
