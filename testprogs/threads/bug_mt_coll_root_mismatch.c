// ranks: 2
// cflags: -pthread
//
// bug_mt_coll_root_mismatch.c: a hybrid solver with 4 worker threads per
// rank (pthread_create, MPI_THREAD_MULTIPLE), each owning one block of
// unknowns and running its own collectives on its own duplicate of
// MPI_COMM_WORLD, as ok_mt_coll_root_agreed.c: each iteration
// MPI_Allreduce of the block's residual, MPI_Bcast of the block's
// parameters from the block's owner, MPI_Gather of the block sums at
// rank 0. The owner table comes from the partition file; rank 1 read the
// one from before the last rebalance, in which block 2 was its own, so
// its worker 2 broadcasts with root 1 while rank 0's uses root 0. The
// other workers agree.
// Breaks MPI-4.1 §6.1 (and §6.4, MPI_BCAST): the root argument must have
// the same value on every process.
// Expected: collective-root-mismatch at the MPI_Bcast (both ranks, on
// worker 2's communicator, each iteration); nothing for the other
// workers' communicators. The job ends: with two ranks both roots send
// and neither receives, and the broadcasts are small enough for MPI to
// complete them without the receive (the messages stay unmatched).
//
// Natively MPICH and Open MPI complete, with rank 0's parameters lost on
// rank 1 and the other way round.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ITERS = 3 };

static int rank;
static MPI_Comm comms[THREADS];
static int owner[THREADS];
static double norms[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = comms[t];
    for (int it = 0; it < ITERS; it++) {
        double r = rank * 100 + t * 10 + it, gr = 0;
        MPI_Allreduce(&r, &gr, 1, MPI_DOUBLE, MPI_SUM, c);
        norms[t] += gr;

        int param[4] = {t, it, owner[t], 3 * it + t};
        MPI_Bcast(param, 4, MPI_INT, owner[t], c); // want "collective-root-mismatch" "rank 1 MPI_Bcast with root 1"

        int bsum = 10 * rank + t + param[1], sums[2];
        MPI_Gather(&bsum, 1, MPI_INT, sums, 1, MPI_INT, 0, c);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    static const int current[THREADS] = {0, 1, 0, 1}, stale[THREADS] = {0, 1, 1, 1};
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_coll_root_mismatch: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int t = 0; t < THREADS; t++)
        owner[t] = rank == 1 ? stale[t] : current[t]; // bug: rank 1 read the old partition
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);

    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);

    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return norms[0] < 0;
}
