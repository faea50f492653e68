// ranks: 2
// cflags: -pthread
// runs: 10
//
// ok_mt_coll_root_agreed.c: the correct twin of
// bug_mt_coll_root_mismatch.c. A hybrid solver with 4 worker threads per
// rank (pthread_create, MPI_THREAD_MULTIPLE), each owning one block of
// unknowns and running its own collectives on its own duplicate of
// MPI_COMM_WORLD (made in the same order on every rank before the threads
// start). After a rebalance the ranks agree on a new block-owner table
// (MPI_Allreduce of the proposals, before the threads start); then each
// iteration a worker adds up its block's residual with MPI_Allreduce,
// broadcasts the block's parameters from the block's owner with
// MPI_Bcast and gathers the per-rank block sums at rank 0 (the writer)
// with MPI_Gather, the 4 workers at the same time.
// Follows MPI-4.1 §6.1 (and §6.4, MPI_BCAST: the root is the same on
// every rank) and §11.6.2 (each communicator belongs to one thread).
// Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ITERS = 6 };

static int rank;
static MPI_Comm comms[THREADS];
static int owner[THREADS];
static int errors[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = comms[t];
    for (int it = 0; it < ITERS; it++) {
        double r = rank * 100 + t * 10 + it, gr = 0;
        MPI_Allreduce(&r, &gr, 1, MPI_DOUBLE, MPI_SUM, c);
        errors[t] += gr != 100 + t * 20 + 2 * it;

        int param[4] = {-1, -1, -1, -1};
        if (rank == owner[t]) {
            param[0] = t;
            param[1] = it;
            param[2] = owner[t];
            param[3] = 3 * it + t;
        }
        MPI_Bcast(param, 4, MPI_INT, owner[t], c);
        errors[t] += param[0] != t || param[1] != it || param[2] != owner[t] || param[3] != 3 * it + t;

        int bsum = 10 * rank + t, sums[2] = {-1, -1};
        MPI_Gather(&bsum, 1, MPI_INT, sums, 1, MPI_INT, 0, c);
        if (rank == 0)
            errors[t] += sums[0] != t || sums[1] != 10 + t;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size, sum = 0, total = 0, proposal[THREADS];
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_coll_root_agreed: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    // the rebalance: each rank proposes the blocks it takes (or -1); the
    // maximum is the table every rank uses
    for (int t = 0; t < THREADS; t++)
        proposal[t] = t % 2 == rank ? rank : -1;
    MPI_Allreduce(proposal, owner, THREADS, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);

    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);

    for (int t = 0; t < THREADS; t++) {
        if (errors[t])
            fprintf(stderr, "rank %d worker %d: %d wrong results\n", rank, t, errors[t]);
        sum += errors[t];
        MPI_Comm_free(&comms[t]);
    }
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mt_coll_root_agreed: OK\n");
    MPI_Finalize();
    return total != 0;
}
