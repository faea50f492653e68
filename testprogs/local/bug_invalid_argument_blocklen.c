// ranks: 2
//
// bug_invalid_argument_blocklen.c: an indexed type for a triangular part of
// a matrix, with block lengths computed as n - 2*i: the third block's
// length is -1.
// Breaks MPI-4.1 §5.1.2 (MPI_TYPE_INDEXED): block lengths are
// non-negative.
// Expected: invalid-argument at the MPI_Type_indexed (both ranks).
//
// MPICH rejects the call (MPI_ERR_COUNT, the default handler would abort);
// MPI_ERRORS_RETURN keeps the job going, and the type, which was not made,
// is neither used nor freed.
#include <mpi.h>

#define N 3

int main(int argc, char **argv)
{
    int i, blocklens[N], displs[N];
    MPI_Datatype tri;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    for (i = 0; i < N; i++) {
        blocklens[i] = N - 2 * i; // bug: should be N - i
        displs[i] = i * N + i;
    }
    int rc = MPI_Type_indexed(N, blocklens, displs, MPI_DOUBLE, &tri); // want "invalid-argument"
    if (rc == MPI_SUCCESS)
        MPI_Type_free(&tri);

    MPI_Finalize();
    return 0;
}
