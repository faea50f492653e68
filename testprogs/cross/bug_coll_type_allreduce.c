// ranks: 5
//
// bug_coll_type_allreduce.c: a global sum of a counter kept as a long
// integer on ranks 0-3 and as a double on rank 4 (its copy of the code
// accumulates weights); both are 8 bytes.
// Breaks MPI-4.1 §6.1 (and §6.9.1): the type signatures of a reduction
// must be the same on every process (LONG against DOUBLE).
// Expected: collective-type-mismatch at the MPI_Allreduce (every rank).
//
// Natively MPICH completes and adds bit patterns of one type as the other.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    union {
        long l;
        double d;
    } in, out;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Datatype t = MPI_LONG;
    if (rank == 4) {
        t = MPI_DOUBLE; // bug: rank 4 counts in doubles
        in.d = 4.0;
    } else {
        in.l = rank;
    }
    out.l = 0;
    MPI_Allreduce(&in, &out, 1, t, MPI_SUM, MPI_COMM_WORLD); // want "collective-type-mismatch"

    MPI_Finalize();
    return 0;
}
