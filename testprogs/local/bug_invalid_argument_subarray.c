// ranks: 2
//
// bug_invalid_argument_subarray.c: a subarray type for the last two rows
// of a 4x4 array, but the start row is 3 instead of 2, so the subarray
// (rows 3..4) reaches past the array.
// Breaks MPI-4.1 §5.1.3 (MPI_TYPE_CREATE_SUBARRAY): 0 <= starts[i] <=
// sizes[i] - subsizes[i].
// Expected: invalid-argument at the MPI_Type_create_subarray (both ranks).
//
// MPICH 4.0.2 does not check this and builds the type; the program never
// communicates with it (it would touch memory past the array), it only
// frees it. With an MPI that rejects the call the handle is not set, hence
// the test of the return code (MPI_ERRORS_RETURN so that such an MPI does
// not abort).
#include <mpi.h>

int main(int argc, char **argv)
{
    int sizes[2] = {4, 4}, subsizes[2] = {2, 4};
    int starts[2] = {3, 0}; // bug: the last two rows start at row 2
    MPI_Datatype lastrows;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int rc = MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &lastrows); // want "invalid-argument"
    if (rc == MPI_SUCCESS)
        MPI_Type_free(&lastrows);

    MPI_Finalize();
    return 0;
}
