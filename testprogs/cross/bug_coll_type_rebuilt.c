// ranks: 2
//
// bug_coll_type_rebuilt.c: a solver refines its mesh in phases; each phase
// builds the datatype of a row of the new length, broadcasts the boundary
// row with it and frees the type. The receiving rank sizes its receive
// from a plan of the row lengths that has one entry too few, so in the
// last phase it keeps the previous length: 6 doubles against the root's
// row of 8.
// Breaks MPI-4.1 §6.1: the amount of data sent must equal the amount
// received, pairwise between each process and the root.
// Expected: collective-type-mismatch at the MPI_Bcast (both ranks, one
// report: the root's call, the other's beside it). Each phase's type
// usually gets the freed handle of the one before, so a digest kept for
// the handle would still describe the old row, whose length the receiver
// expects: the mismatch must be found with the new type's signature.
//
// MPICH and Open MPI return MPI_ERR_TRUNCATE on the receiving rank (the
// default handler would abort the job): MPI_ERRORS_RETURN lets the
// program finish.
#include <mpi.h>

enum { PHASES = 4, MAXLEN = 2 * PHASES };

/* bug: the plan misses the last phase's length */
static const int plan[PHASES - 1] = {2, 4, 6};

int main(int argc, char **argv)
{
    int rank, known = 0;
    double row[MAXLEN];
    MPI_Datatype row_t;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (int p = 1; p <= PHASES; p++) {
        int len = 2 * p;
        MPI_Type_contiguous(len, MPI_DOUBLE, &row_t);
        MPI_Type_commit(&row_t);
        for (int i = 0; i < len; i++)
            row[i] = 100 * p + i;
        if (p <= PHASES - 1)
            known = plan[p - 1];
        if (rank == 0)
            MPI_Bcast(row, 1, row_t, 0, MPI_COMM_WORLD); // want "collective-type-mismatch"
        else
            MPI_Bcast(row, known, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Type_free(&row_t);
    }
    MPI_Finalize();
    return 0;
}
