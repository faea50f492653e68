// ranks: 3
// cflags: -pthread
// runs: 10
//
// ok_mt_race_free_sources.c: the correct twin of bug_mt_message_race.c.
// Three ranks with 4 worker threads each (pthread_create,
// MPI_THREAD_MULTIPLE). Workers 2 and 3 of every rank run a ring halo
// exchange (MPI_Sendrecv to the next rank, from the previous one, tag =
// worker number). Meanwhile ranks 1 and 2 each send rank 0 their boundary
// flux (worker 0, tag 0) and wait for a correction (worker 1, tag 1); on
// rank 0, worker 0 handles the left boundary and receives rank 1's flux,
// worker 1 the right one and receives rank 2's, each naming its source,
// and each sends the correction back to that rank.
// Follows MPI-4.1 §3.5: a receive that names its source takes the message
// of that rank whatever the arrival order; two threads receiving at once
// from different sources take each its own message.
// Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, STEPS = 4, N = 8 };

static int rank, size;
static int errors[THREADS];

static double flux(int r) { return 1.5 * r; }

static void *worker(void *arg)
{
    int t = (int)(long)arg, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (t >= 2) {
        double out[N], in[N];
        for (int step = 0; step < STEPS; step++) {
            for (int i = 0; i < N; i++)
                out[i] = 100 * rank + 10 * step + i + t;
            MPI_Sendrecv(out, N, MPI_DOUBLE, next, t, in, N, MPI_DOUBLE, prev, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++)
                errors[t] += in[i] != 100 * prev + 10 * step + i + t;
        }
    } else if (rank == 0) {
        // worker 0: the left boundary, rank 1; worker 1: the right, rank 2
        int from = t + 1;
        double f, corr;
        MPI_Recv(&f, 1, MPI_DOUBLE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        errors[t] += f != flux(from);
        corr = t == 0 ? -f : f / 2;
        MPI_Send(&corr, 1, MPI_DOUBLE, from, 1, MPI_COMM_WORLD);
    } else if (t == 0) {
        double f = flux(rank);
        MPI_Send(&f, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    } else {
        double corr;
        MPI_Recv(&corr, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        errors[t] += corr != (rank == 1 ? -flux(1) : flux(2) / 2);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, sum = 0, total = 0;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 3) {
        fprintf(stderr, "ok_mt_race_free_sources: needs MPI_THREAD_MULTIPLE and 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);

    for (int t = 0; t < THREADS; t++) {
        if (errors[t])
            fprintf(stderr, "rank %d worker %d: %d wrong values\n", rank, t, errors[t]);
        sum += errors[t];
    }
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mt_race_free_sources: OK\n");
    MPI_Finalize();
    return total != 0;
}
