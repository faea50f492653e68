// ranks: 3
// native: hangs
//
// bug_coll_reduce_root.c: the ranks add up their residuals with
// MPI_Reduce at the rank that checks convergence. Rank 1 was made the
// checker by a command-line option the others did not get: it passes
// root 1, ranks 0 and 2 pass root 0.
// Breaks MPI-4.1 §6.1 (and §6.9.1, MPI_REDUCE): the root argument must
// have the same value on every process.
// Expected: collective-root-mismatch at the MPI_Reduce (every rank),
// before MPI sees the call. Then ranks 0 and 1 each wait as the root for
// the others' contributions; rank 2's goes to rank 0's and it leaves for
// MPI_Finalize: deadlock at rank 0's MPI_Reduce (ranks 0 and 1 wait in
// the reduction for rank 2, rank 2 in MPI_Finalize for them), and mpidbg
// ends the job.
//
// Natively MPICH and Open MPI hang the same way.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, root;
    double res, total = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    res = 1e-3 / (1 + rank);
    root = rank == 1 ? 1 : 0; // bug: the option reached rank 1 only
    MPI_Reduce(&res, &total, 1, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD); // want "collective-root-mismatch" "deadlock"

    MPI_Finalize();
    return total < 0;
}
