// ranks: 2
//
// bug_type_free_predefined.c: a table of the datatypes a module uses is
// released at the end, but the table mixes the derived type with the
// predefined MPI_DOUBLE.
// Breaks MPI-4.1 §5.1.9: predefined datatypes cannot be freed.
// Expected: type-free-predefined at the MPI_Type_free in the loop (both
// ranks; the derived type's free on the same line is legal).
//
// MPICH rejects the call with MPI_ERR_TYPE (the default handler would
// abort); MPI_ERRORS_RETURN keeps the job going.
#include <mpi.h>

int main(int argc, char **argv)
{
    int i;
    MPI_Datatype types[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Type_contiguous(3, MPI_DOUBLE, &types[0]);
    MPI_Type_commit(&types[0]);
    types[1] = MPI_DOUBLE; // bug: not ours to free

    for (i = 0; i < 2; i++)
        MPI_Type_free(&types[i]); // want "type-free-predefined"

    MPI_Finalize();
    return 0;
}
