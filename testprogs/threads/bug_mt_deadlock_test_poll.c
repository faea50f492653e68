// ranks: 2
// cflags: -pthread
// native: hangs
//
// bug_mt_deadlock_test_poll.c: a progress-thread design. Each of 2 ranks
// runs 4 pthreads (MPI_THREAD_MULTIPLE): workers 0-2 exchange their halo
// with the same worker of the other rank (MPI_Sendrecv) and finish;
// worker 3 is the "progress" thread: it posts MPI_Irecv for the peer's
// checkpoint marker and polls it with MPI_Test, doing nothing else, and
// would send its own marker only after the peer's arrived. Both ranks
// wait for each other's marker first: neither is ever sent. The main
// thread waits in pthread_join.
// Breaks MPI-4.1 §3.5 (progress): a receive completes only once a
// matching send is started; nothing here ever starts one.
// Expected: deadlock at rank 0's MPI_Test, and mpidbg ends the job.
//
// Natively MPICH and Open MPI hang (both progress threads poll for ever).
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, N = 16 };

static int rank;
static double last[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg, other = 1 - rank;
    if (t < 3) {
        double out[N], in[N];
        for (int i = 0; i < N; i++)
            out[i] = 100 * rank + 10 * t + i;
        MPI_Sendrecv(out, N, MPI_DOUBLE, other, t, in, N, MPI_DOUBLE, other, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        last[t] = in[N - 1];
        return NULL;
    }
    int marker = -1, mine = rank, done = 0;
    MPI_Request r;
    MPI_Irecv(&marker, 1, MPI_INT, other, 99, MPI_COMM_WORLD, &r);
    while (!done)
        MPI_Test(&r, &done, MPI_STATUS_IGNORE); // want "deadlock"
    MPI_Send(&mine, 1, MPI_INT, other, 99, MPI_COMM_WORLD); // bug: sent only after the peer's, which waits for ours
    last[t] = marker;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "bug_mt_deadlock_test_poll: needs MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    MPI_Finalize();
    return last[0] < 0;
}
