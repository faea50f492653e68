// ranks: 3
// native[openmpi]: hangs
//
// bug_coll_type_bcast.c: rank 0 broadcasts a table of 4 ints; the other
// ranks receive it with a count of 2 (their table size constant is out of
// date).
// Breaks MPI-4.1 §6.1: the amount of data sent must equal the amount
// received, pairwise between each process and the root (no partial
// receive in a collective).
// Expected: collective-type-mismatch at the MPI_Bcast (every rank).
//
// MPICH returns MPI_ERR_TRUNCATE on the non-root ranks (the default handler
// would abort the job): MPI_ERRORS_RETURN lets the program finish. Open
// MPI 4.1's tree broadcast leaves rank 2 waiting for the rest of the table
// that rank 1 never forwards: with Open MPI the job then hangs, natively
// too, and mpidbg reports that deadlock as well (want[openmpi]).
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, n, table[4] = {0, 0, 0, 0};

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        table[0] = 1;
        table[3] = 4;
    }
    n = rank == 0 ? 4 : 2; // bug: the receivers' count is out of date
    MPI_Bcast(table, n, MPI_INT, 0, MPI_COMM_WORLD); // want "collective-type-mismatch"

    MPI_Finalize(); // want[openmpi] "deadlock"
    return 0;
}
