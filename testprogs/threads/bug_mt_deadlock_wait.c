// ranks: 2
// native: hangs
// cflags: -pthread
//
// bug_mt_deadlock_wait.c: two ranks with 4 worker threads each
// (pthread_create, MPI_THREAD_MULTIPLE); the main thread waits for them
// in pthread_join. Workers 0, 1 and 2 run a halo exchange with the same
// worker of the other rank (MPI_Irecv, MPI_Isend, MPI_Waitall, tag =
// worker number) and return. Worker 3 exchanges the ranks' step counts:
// it posts MPI_Irecv for the other rank's count, but waits for it with
// MPI_Wait before it sends its own, on both ranks.
// Breaks MPI-4.1 §3.5 (progress) and §3.7.3: MPI_Wait on a receive
// returns only once a matching send is started; each rank's send comes
// after a wait only the other's send could end, so neither worker 3 can
// proceed, and the main threads wait for them in pthread_join.
// Expected: deadlock at rank 0's MPI_Wait in worker 3 (the lowest rank of
// the cycle 0 -> 1 -> 0; where it waits on a request); mpidbg ends the
// job.
//
// Natively MPICH and Open MPI hang the same way.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, N = 16, STEPS = 4 };

static int rank;
static double last[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg, other = 1 - rank;
    if (t == 3) {
        int steps = 40 + rank, theirs = 0;
        MPI_Request r;
        MPI_Irecv(&theirs, 1, MPI_INT, other, 3, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE); // want "deadlock"
        MPI_Send(&steps, 1, MPI_INT, other, 3, MPI_COMM_WORLD);
        last[t] = theirs;
        return NULL;
    }
    double out[N], in[N];
    for (int step = 0; step < STEPS; step++) {
        MPI_Request r[2];
        MPI_Status sts[2];
        for (int i = 0; i < N; i++)
            out[i] = 100 * rank + 10 * step + i;
        MPI_Irecv(in, N, MPI_DOUBLE, other, t, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, N, MPI_DOUBLE, other, t, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, sts);
        last[t] = in[N - 1];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_deadlock_wait: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);

    MPI_Finalize();
    return last[0] < 0;
}
