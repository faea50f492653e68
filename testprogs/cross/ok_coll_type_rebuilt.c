// ranks: 3
//
// ok_coll_type_rebuilt.c: the correct twin of bug_coll_type_rebuilt.c. A
// solver refines its mesh in phases; each phase builds the datatype of a
// row of the new length, broadcasts the boundary row with it and gathers
// every rank's row, then frees the type. The next phase's type usually
// gets the freed handle back, so a digest kept for a handle must be the
// new type's. The non-root ranks receive the row either with the row type
// or as that many doubles: the signatures are equal (MPI-4.1 §6.1, type
// matching in collectives is by signature, §5.1.11). Every value is
// checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

enum { PHASES = 5, MAXLEN = 2 * PHASES };

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    double row[MAXLEN], all[3 * MAXLEN];
    MPI_Datatype row_t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int p = 1; p <= PHASES; p++) {
        int len = 2 * p;
        MPI_Type_contiguous(len, MPI_DOUBLE, &row_t);
        MPI_Type_commit(&row_t);
        for (int i = 0; i < len; i++)
            row[i] = rank == 0 ? 100 * p + i : -1;
        if (rank == 0 || p % 2 == 0)
            MPI_Bcast(row, 1, row_t, 0, MPI_COMM_WORLD);
        else
            MPI_Bcast(row, len, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int i = 0; i < len; i++)
            if (row[i] != 100 * p + i)
                errors++;
        for (int i = 0; i < len; i++)
            row[i] += rank;
        MPI_Allgather(row, 1, row_t, all, len, MPI_DOUBLE, MPI_COMM_WORLD);
        for (int r = 0; r < size && r < 3; r++)
            for (int i = 0; i < len; i++)
                if (all[r * len + i] != 100 * p + i + r)
                    errors++;
        MPI_Type_free(&row_t);
    }
    if (errors)
        fprintf(stderr, "rank %d: %d wrong values\n", rank, errors);
    else if (rank == 0)
        printf("ok_coll_type_rebuilt: OK\n");
    MPI_Finalize();
    return errors != 0;
}
