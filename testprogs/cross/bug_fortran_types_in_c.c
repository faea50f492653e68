// ranks: 3
//
// bug_fortran_types_in_c.c: a C driver collects results from two ranks
// that run a Fortran solver. The solver's arrays are Fortran INTEGER, so
// the workers describe them as MPI_INTEGER; rank 0 receives
//   - rank 1's cell counts as MPI_INT, taking INTEGER for a C int (same
//     size, so MPI copies the bytes);
//   - rank 2's iteration counts as MPI_REAL, taking them for residuals
//     (same size again: rank 0 reads integers as floats).
// Breaks MPI-4.1 §3.3.1: MPI_INTEGER matches only MPI_INTEGER (a Fortran
// INTEGER), not MPI_INT nor MPI_REAL, whatever their sizes.
// Expected: type-mismatch at both MPI_Recv calls of rank 0, naming the
// MPI_INTEGER element of the sender.
#include <mpi.h>

enum { NCELLS = 4 };

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        int cells[NCELLS];
        float residual[NCELLS];
        MPI_Recv(cells, NCELLS, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch" "sends MPI_INTEGER\[0\] where rank 0 receives MPI_INT\[0\]"
        MPI_Recv(residual, NCELLS, MPI_REAL, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch" "sends MPI_INTEGER\[0\] where rank 0 receives MPI_REAL\[0\]"
        (void)cells, (void)residual;
    } else {
        /* what the Fortran solver filled: INTEGER, a C int under gfortran */
        int counts[NCELLS];
        for (int i = 0; i < NCELLS; i++)
            counts[i] = 100 * rank + i;
        if (rank == 1)
            MPI_Send(counts, NCELLS, MPI_INTEGER, 0, 0, MPI_COMM_WORLD); // bug: received as MPI_INT
        else
            MPI_Send(counts, NCELLS, MPI_INTEGER, 0, 1, MPI_COMM_WORLD); // bug: received as MPI_REAL
    }

    MPI_Finalize();
    return 0;
}
