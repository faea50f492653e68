// ranks: 2
// skip[mpich]: MPICH asserts on the type's negative reference count and aborts the job, with or without mpidbg (bug_type_double_free.c covers MPICH)
//
// bug_type_double_free_alone.c: a type is freed once through its variable
// and again through a copy of the handle kept in a table of types to
// release. Unlike bug_type_double_free.c nothing else refers to the type,
// so the first MPI_Type_free destroys it and the copy dangles.
// Breaks MPI-4.1 §5.1.9: MPI_TYPE_FREE on a handle that no longer refers to
// a datatype is erroneous.
// Expected: type-double-free at the second MPI_Type_free (both ranks).
//
// Open MPI's handle is the address of the freed object, which MPI_Type_free
// follows: natively it decrements a count in freed heap memory (where the
// allocator keeps its own data) and returns MPI_SUCCESS. Under mpidbg the
// shim refuses the call and returns MPI_ERR_TYPE instead (shim/finding.c):
// MPI_ERRORS_RETURN keeps the job going.
//
// Not run with MPICH: its MPI_Type_free takes the count of the destroyed
// type below zero, which MPICH asserts against and aborts the job, under
// mpidbg too (the shim gives MPICH every handle: it rejects bad ones
// itself, but not this one). bug_type_double_free.c plants the same mistake
// with a second reference that keeps the type alive.
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Datatype row, to_release[1];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Type_contiguous(3, MPI_INT, &row);
    MPI_Type_commit(&row);
    to_release[0] = row;

    MPI_Type_free(&row);
    MPI_Type_free(&to_release[0]); // want "type-double-free"

    MPI_Finalize();
    return 0;
}
