// ranks: 4
// native: hangs
//
// bug_coll_nonblocking_mix.c: the even ranks overlap their global sum with
// work (MPI_Iallreduce, then MPI_Wait); the odd ranks call MPI_Allreduce.
// Breaks MPI-4.1 §6.12: a nonblocking collective never matches a blocking
// one (§6.1: all ranks must call the same collective in the same order).
// Expected: collective-mismatch at the MPI_Iallreduce (ranks 0, 2), with
// the MPI_Allreduce (ranks 1, 3) as a related line; deadlock at rank 0's
// MPI_Wait, where the lowest rank of the deadlock blocks.
//
// Natively MPICH hangs: the two operations do not exchange messages with
// each other.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i;
    double local, sum = 0, work = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    local = 1.0 + rank;
    if (rank % 2 == 0) {
        MPI_Iallreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r); // want "collective-mismatch"
        for (i = 0; i < 100; i++)
            work += 0.5 * i;
        MPI_Wait(&r, MPI_STATUS_IGNORE); // want "deadlock"
    } else {
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); // related "collective-mismatch"
    }

    MPI_Finalize();
    return work < 0;
}
