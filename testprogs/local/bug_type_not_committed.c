// ranks: 2
//
// bug_type_not_committed.c: the ranks swap every other element of an array
// with a vector type that was built but never committed.
// Breaks MPI-4.1 §5.1.9: a datatype must be committed before it is used in
// communication.
// Expected: type-not-committed at the MPI_Sendrecv (both ranks).
//
// MPICH rejects the call on both ranks with MPI_ERR_TYPE (the default
// handler would abort); MPI_ERRORS_RETURN keeps the job going.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i, out[8], in[8] = {0};
    MPI_Datatype evens;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (i = 0; i < 8; i++)
        out[i] = rank * 8 + i;
    MPI_Type_vector(4, 1, 2, MPI_INT, &evens);
    // bug: MPI_Type_commit(&evens) is missing
    MPI_Sendrecv(out, 1, evens, rank ^ 1, 0, in, 1, evens, rank ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-not-committed" "recvtype vector\(4,1,2,INT\) is used before MPI_Type_commit"

    MPI_Type_free(&evens);
    MPI_Finalize();
    return 0;
}
