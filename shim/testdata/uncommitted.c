/* Sends with a vector type that was never committed: type-not-committed. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    char buf[64] = {0};
    MPI_Datatype vec;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(2, 5, 3, MPI_CHAR, &vec);
    MPI_Type_set_name(vec, "vec");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0)
        MPI_Send(buf, 1, vec, 1, 0, MPI_COMM_WORLD); /* want type-not-committed */
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}
