/* handles.c: null and freed handles in a program's variables, for the
 * DAP tests to show at the line marked BREAK: MPI_DATATYPE_NULL, a copy
 * of a freed datatype's handle, MPI_REQUEST_NULL. Run with 1 rank. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Datatype vec_t, gone, none = MPI_DATATYPE_NULL;
    MPI_Request req = MPI_REQUEST_NULL;

    MPI_Init(&argc, &argv);
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vec_t);
    MPI_Type_set_name(vec_t, "vec_t");
    MPI_Type_commit(&vec_t);
    gone = vec_t;
    MPI_Type_free(&vec_t); // FREED
    printf("handles: %d\n", vec_t == none && req == MPI_REQUEST_NULL); // BREAK
    (void)gone;
    MPI_Finalize();
    return 0;
}
