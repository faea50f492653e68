// ranks: 2
// cflags: -fopenmp
//
// bug_mt_coll_op_mismatch.c: a hybrid solver whose 4 OpenMP threads per
// rank (MPI_THREAD_MULTIPLE) each own one block of unknowns and run their
// own collectives on their own duplicate of MPI_COMM_WORLD (made in order
// before the parallel region), as ok_mt_coll_per_thread.c: each iteration
// MPI_Allreduce of the block's residual, MPI_Bcast of its parameters and
// MPI_Gather of the block sums. The residual norm is a per-block option,
// and rank 1 was given the maximum norm for block 2: its thread 2 passes
// MPI_MAX where rank 0's passes MPI_SUM. The other threads agree.
// Breaks MPI-4.1 §6.9.1: the op argument must be the same on all
// processes of the communicator.
// Expected: collective-op-mismatch at the MPI_Allreduce (both ranks, on
// thread 2's communicator, each iteration); nothing for the other
// threads' communicators, nor for the MPI_Bcast and MPI_Gather.
//
// Natively MPICH and Open MPI complete, with a residual that depends on
// which rank applied which operation.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

enum { THREADS = 4, ITERS = 3 };

static MPI_Comm comms[THREADS];
static double norms[THREADS];

int main(int argc, char **argv)
{
    int provided, rank, size;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_coll_op_mismatch: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);

    omp_set_dynamic(0);
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num(), owner = t % 2;
        MPI_Comm c = comms[t];
        MPI_Op norm = rank == 1 && t == 2 ? MPI_MAX : MPI_SUM; // bug: block 2's option differs on rank 1
        if (omp_get_num_threads() != THREADS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int it = 0; it < ITERS; it++) {
            double r = rank * 100 + t * 10 + it, gr = 0;
            MPI_Allreduce(&r, &gr, 1, MPI_DOUBLE, norm, c); // want "collective-op-mismatch" "rank 1 MPI_Allreduce with op MPI_MAX"
            norms[t] += gr;

            int param[3] = {t, it, 7 * t + it};
            MPI_Bcast(param, 3, MPI_INT, owner, c);

            int bsum = rank + t + it, sums[2];
            MPI_Gather(&bsum, 1, MPI_INT, sums, 1, MPI_INT, owner, c);
        }
    }

    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return norms[0] < 0;
}
