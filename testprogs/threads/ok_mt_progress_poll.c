// ranks: 2
// cflags: -pthread
// runs: 10
// flags: --deadlock-timeout=300ms
//
// ok_mt_progress_poll.c: the correct twin of bug_mt_deadlock_test_poll.c.
// Each of 2 ranks runs 4 pthreads (MPI_THREAD_MULTIPLE): workers 0-2
// exchange their halo with the same worker of the other rank
// (MPI_Sendrecv); worker 3 is the progress thread. Rank 0's polls
// MPI_Test on its MPI_Irecv for rank 1's checkpoint marker, then answers
// with its own; rank 1's writes its checkpoint first (about a second,
// usleep), sends the marker, and then polls for rank 0's answer. For that
// second rank 0's progress thread only polls, as in the deadlock, but
// rank 1's is busy and will send. The deadlock timeout is shortened
// below that second, so that only the watcher's knowledge of threads
// keeps it from reporting one.
// Follows MPI-4.1 §3.5 (progress: the receive completes once the
// matching send starts) and §3.7.3 (MPI_Test may be called until the
// request completes).
// Every value is checked.
// Correct: must produce no findings.
#define _DEFAULT_SOURCE // usleep
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { THREADS = 4, N = 16 };

static int rank, errors;

static void poll_marker(int *marker, int other)
{
    int done = 0;
    MPI_Request r;
    MPI_Irecv(marker, 1, MPI_INT, other, 99, MPI_COMM_WORLD, &r);
    while (!done)
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg, other = 1 - rank;
    if (t < 3) {
        double out[N], in[N];
        for (int i = 0; i < N; i++)
            out[i] = 100 * rank + 10 * t + i;
        MPI_Sendrecv(out, N, MPI_DOUBLE, other, t, in, N, MPI_DOUBLE, other, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in[N - 1] != 100 * other + 10 * t + N - 1)
            __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    int marker = -1, mine = 1000 + rank;
    if (rank == 0) {
        poll_marker(&marker, other);
        MPI_Send(&mine, 1, MPI_INT, other, 99, MPI_COMM_WORLD);
    } else {
        usleep(1000 * 1000); // the checkpoint
        MPI_Send(&mine, 1, MPI_INT, other, 99, MPI_COMM_WORLD);
        poll_marker(&marker, other);
    }
    if (marker != 1000 + other)
        __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, total = 0;
    pthread_t th[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "ok_mt_progress_poll: needs MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "ok_mt_progress_poll: %d wrong values\n" : "ok_mt_progress_poll: OK\n", total);
    MPI_Finalize();
    return total != 0;
}
