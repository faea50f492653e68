// ranks: 2
//
// bug_leak_type.c: a correct exchange with a vector type that is never
// freed.
// Warns about MPI-4.1 §5.1.9: derived datatypes are freed with
// MPI_TYPE_FREE.
// Expected: leak-type (warning), reported at MPI_Finalize against the line
// that created the type (the MPI_Type_vector, both ranks).
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, i, out[8], in[8] = {0};
    MPI_Datatype odds;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (i = 0; i < 8; i++)
        out[i] = rank * 8 + i;
    MPI_Type_vector(4, 1, 2, MPI_INT, &odds); // want "leak-type"
    MPI_Type_commit(&odds);
    MPI_Sendrecv(out + 1, 1, odds, rank ^ 1, 0, in + 1, 1, odds, rank ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    // bug: no MPI_Type_free(&odds)

    if (in[3] != (rank ^ 1) * 8 + 3)
        printf("rank %d: in[3] = %d\n", rank, in[3]);
    MPI_Finalize();
    return 0;
}
