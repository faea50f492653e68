// ranks: 2
//
// bug_type_freed.c: a row type is kept in two variables; one copy is freed
// (which sets only that variable to MPI_DATATYPE_NULL), then the other copy
// is used for an exchange.
// Breaks MPI-4.1 §5.1.9: after MPI_TYPE_FREE the handle is dead; using a
// copy of it is erroneous.
// Expected: type-freed at the MPI_Sendrecv (both ranks).
//
// The pair type built from the row type keeps MPICH's object alive (types
// built from a freed type stay valid), so the stale handle still works in
// MPICH and the exchange goes through natively; the pair type is freed at
// the end.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i, out[6], in[6] = {0};
    MPI_Datatype row, pair;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (i = 0; i < 6; i++)
        out[i] = rank * 6 + i;
    MPI_Type_contiguous(3, MPI_INT, &row);
    MPI_Type_commit(&row);
    MPI_Type_contiguous(2, row, &pair);
    MPI_Type_commit(&pair);

    MPI_Datatype saved = row;
    MPI_Type_free(&row);
    MPI_Sendrecv(out, 1, saved, rank ^ 1, 0, in, 1, saved, rank ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-freed"

    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
