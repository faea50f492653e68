// ranks: 2
// native[openmpi]: crashes
//
// bug_missing_finalize_exit.c: a solver checks its options after MPI_Init
// and, when the problem size is missing, ends the run quietly with exit(0)
// on every rank, without MPI_Finalize. Open MPI's mpiexec calls that an
// abnormal termination and exits 1 (hence the native mark); MPICH's lets
// it pass.
// Breaks MPI-4.1 §11.2.2: a process that initialised the World Model must
// finalize it exactly once before it ends.
// Expected: missing-finalize (error) at the exit() call, both ranks (Open
// MPI's mpiexec may end one rank before its exit hook runs).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long problem_size(int argc, char **argv)
{
    /* rank 0 reads the options and tells the others: every rank decides
     * on the same value at the same moment (an exit of one rank while
     * another is still busy lets MPICH's mpiexec end the other with
     * SIGHUP, natively too) */
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (n <= 0) {
        /* the usage message would go here */
        exit(0); // want "missing-finalize" "exit\(0\) was called without calling MPI_Finalize after MPI_Init"
    }
    return n;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = problem_size(argc, argv);
    double local = (double)n * (rank + 1), total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %.0f over %d ranks\n", total, size);
    MPI_Finalize();
    return 0;
}
