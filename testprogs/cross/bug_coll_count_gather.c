// ranks: 3
//
// bug_coll_count_gather.c: rank 0 gathers 2 ints from every rank; rank 2
// sends 3 (it also sends a flag it added to its record).
// Breaks MPI-4.1 §6.1 (and §6.5, MPI_GATHER): the amount of data sent by
// each process must equal the amount the root receives from it.
// Expected: collective-type-mismatch at the MPI_Gather (every rank). The
// non-root ranks pass no receive arguments (0 and MPI_DATATYPE_NULL: MPI
// reads them only at the root), which the report leaves out.
//
// MPICH returns MPI_ERR_TRUNCATE on the root (the default handler would
// abort the job): MPI_ERRORS_RETURN lets the program finish.
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, size, rec[3], all[3 * 8];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    rec[0] = rank;
    rec[1] = 10 * rank;
    rec[2] = 1;
    int n = rank == 2 ? 3 : 2; // bug: rank 2 sends its flag too
    if (rank == 0)
        MPI_Gather(rec, n, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD); // want "collective-type-mismatch" "rank 0 MPI_Gather as the root with count 2 of MPI_INT; rank 1 MPI_Gather with count 2 of MPI_INT; rank 2 MPI_Gather with count 3 of MPI_INT"
    else
        MPI_Gather(rec, n, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);

    MPI_Finalize();
    return 0;
}
