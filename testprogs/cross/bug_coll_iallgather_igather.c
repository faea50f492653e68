// ranks: 3
// native: hangs
//
// bug_coll_iallgather_igather.c: each rank counts its local particles and
// the counts are collected while the ranks sort their particles. Rank 0,
// which writes the output file, posts MPI_Igather to itself; ranks 1 and
// 2, built from an older version in which every rank kept the table of
// counts, post MPI_Iallgather.
// Breaks MPI-4.1 §6.12 and §6.1: the n-th collective on a communicator
// must be the same operation on every process.
// Expected: collective-mismatch at the MPI_Igather (rank 0), with the
// MPI_Iallgather (ranks 1, 2) as a related line; deadlock where rank 0 blocks, and mpidbg
// ends the job. With MPICH rank 0 blocks in its MPI_Wait; Open MPI
// completes the root's MPI_Igather from the data the other ranks'
// MPI_Iallgather sends it, and rank 0 blocks in MPI_Finalize instead.
//
// Natively MPICH and Open MPI hang.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, i, n, counts[8] = {0}, total = 0;
    double x[32];
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    n = 10 + 7 * rank;
    if (rank == 0)
        MPI_Igather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD, &r); // want "collective-mismatch"
    else
        MPI_Iallgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD, &r); // related "collective-mismatch"
    for (i = 0; i < 32; i++) // sort stand-in: some local work
        x[i] = (double)((i * 7 + rank) % 32);
    MPI_Wait(&r, MPI_STATUS_IGNORE); // want[mpich] "deadlock"
    for (i = 0; i < size; i++)
        total += counts[i];

    MPI_Finalize(); // want[openmpi] "deadlock"
    return total < 0 || x[3] < 0;
}
