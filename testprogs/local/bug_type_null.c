// ranks: 2
//
// bug_type_null.c: the two ranks swap a column of a 4x4 matrix with a
// vector type; a cleanup function frees the type (MPI_Type_free sets the
// variable to MPI_DATATYPE_NULL) before the exchange instead of after it.
// Breaks MPI-4.1 §5.1: MPI_DATATYPE_NULL is not a datatype.
// Expected: type-null at the MPI_Sendrecv (both ranks).
//
// MPICH rejects the call on both ranks with MPI_ERR_TYPE (the default
// handler would abort), so nothing is sent; MPI_ERRORS_RETURN keeps the job
// going.
#include <mpi.h>

static double a[4][4], b[4][4];

static void cleanup(MPI_Datatype *col) { MPI_Type_free(col); }

int main(int argc, char **argv)
{
    int rank;
    MPI_Datatype col;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    cleanup(&col); // bug: freed before its last use

    MPI_Sendrecv(&a[0][0], 1, col, rank ^ 1, 0, &b[0][3], 1, col, rank ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-null"

    MPI_Finalize();
    return 0;
}
