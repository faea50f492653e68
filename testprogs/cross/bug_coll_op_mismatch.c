// ranks: 6
//
// bug_coll_op_mismatch.c: the 6 ranks form two groups of 3 with
// MPI_Comm_split; each group reduces an error estimate over its own
// communicator. The group's first rank reads the norm option as "max", the
// others use the default "sum": MPI_MAX on one rank, MPI_SUM on the
// others. A world MPI_Allreduce with the same op everywhere follows
// (correct).
// Breaks MPI-4.1 §6.9.1: the op argument must be the same on all
// processes of the communicator.
// Expected: collective-op-mismatch at the MPI_Allreduce on the split
// communicator (every rank of each group); nothing at the world one.
//
// Natively MPICH completes with a result that depends on which rank
// applied which operation.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, grank;
    double err, gerr = 0, werr = 0;
    MPI_Comm group;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Comm_split(MPI_COMM_WORLD, rank / 3, rank, &group);
    MPI_Comm_rank(group, &grank);
    err = 0.01 * (rank + 1);
    MPI_Op norm = grank == 0 ? MPI_MAX : MPI_SUM; // bug: one rank's option differs
    MPI_Allreduce(&err, &gerr, 1, MPI_DOUBLE, norm, group); // want "collective-op-mismatch"
    MPI_Allreduce(&gerr, &werr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    MPI_Comm_free(&group);
    MPI_Finalize();
    return werr < 0;
}
