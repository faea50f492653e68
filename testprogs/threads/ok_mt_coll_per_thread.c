// ranks: 2
// cflags: -fopenmp
// runs: 10
//
// ok_mt_coll_per_thread.c: the correct twin of bug_mt_coll_op_mismatch.c.
// A hybrid solver whose 4 OpenMP threads per rank (MPI_THREAD_MULTIPLE)
// each own one block of unknowns and run their own collectives: before
// the parallel region every rank duplicates MPI_COMM_WORLD once per thread,
// in the same order, and thread t uses only communicator t. Each
// iteration a thread adds up its block's residual over the ranks with
// MPI_Allreduce(MPI_SUM), broadcasts the block's step parameters from the
// block's owner (rank t % 2) with MPI_Bcast and gathers the per-rank
// block sums at that owner with MPI_Gather; the 4 threads do so at the
// same time, on 4 communicators.
// Follows MPI-4.1 §6.9.1 (the op is the same on every rank), §6.1 (so is
// the root) and §11.6.2 (collectives of one communicator must not run
// concurrently in two threads of a process: here each communicator
// belongs to one thread).
// Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

enum { THREADS = 4, ITERS = 6 };

static MPI_Comm comms[THREADS];
static int errors[THREADS];

// the residual of block t on a rank at an iteration: small integers, so
// sums are exact in double
static double residual(int rank, int t, int it) { return (double)(rank * 100 + t * 10 + it); }

int main(int argc, char **argv)
{
    int provided, rank, size, sum = 0, total = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_coll_per_thread: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);

    omp_set_dynamic(0);
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num(), owner = t % 2;
        MPI_Comm c = comms[t];
        if (omp_get_num_threads() != THREADS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int it = 0; it < ITERS; it++) {
            double r = residual(rank, t, it), gr = 0;
            MPI_Allreduce(&r, &gr, 1, MPI_DOUBLE, MPI_SUM, c);
            errors[t] += gr != residual(0, t, it) + residual(1, t, it);

            int param[3] = {0, 0, 0};
            if (rank == owner) {
                param[0] = t;
                param[1] = it;
                param[2] = 7 * t + it;
            }
            MPI_Bcast(param, 3, MPI_INT, owner, c);
            errors[t] += param[0] != t || param[1] != it || param[2] != 7 * t + it;

            int bsum = rank + t + it, sums[2] = {-1, -1};
            MPI_Gather(&bsum, 1, MPI_INT, sums, 1, MPI_INT, owner, c);
            if (rank == owner)
                errors[t] += sums[0] != t + it || sums[1] != 1 + t + it;
        }
    }

    for (int t = 0; t < THREADS; t++) {
        if (errors[t])
            fprintf(stderr, "rank %d thread %d: %d wrong results\n", rank, t, errors[t]);
        sum += errors[t];
        MPI_Comm_free(&comms[t]);
    }
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mt_coll_per_thread: OK\n");
    MPI_Finalize();
    return total != 0;
}
