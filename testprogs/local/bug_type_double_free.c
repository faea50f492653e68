// ranks: 2
//
// bug_type_double_free.c: a type is freed once through its variable and
// again through a copy of the handle kept in a table of types to release.
// Breaks MPI-4.1 §5.1.9: MPI_TYPE_FREE on a handle that no longer refers to
// a datatype is erroneous.
// Expected: type-double-free at the second MPI_Type_free (both ranks).
//
// Second, deliberate bug: the pair type built from it is never freed
// (leak-type, reported at MPI_Finalize against the line that created the
// pair type). It is needed natively: MPICH counts the pair type's reference
// to the inner type, so the double free brings that count to zero instead
// of below zero (MPICH asserts on a negative count and aborts the job).
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Datatype row, pair, to_release[1];

    MPI_Init(&argc, &argv);

    MPI_Type_contiguous(3, MPI_INT, &row);
    MPI_Type_commit(&row);
    MPI_Type_contiguous(2, row, &pair); // want "leak-type"
    MPI_Type_commit(&pair);
    to_release[0] = row;

    MPI_Type_free(&row);
    MPI_Type_free(&to_release[0]); // want "type-double-free"

    MPI_Finalize();
    return 0;
}
