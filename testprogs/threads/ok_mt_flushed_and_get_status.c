// ranks: 2
// cflags: -pthread
//
// ok_mt_flushed_and_get_status.c: the completions a single-threaded
// program under MPI_THREAD_MULTIPLE relies on (as every mpi4py script
// does: it asks for MPI_THREAD_MULTIPLE by default). Each rank:
// - MPI_Rput of a 1024-double block under a shared lock, MPI_Win_flush
//   of the target, then refills the origin before MPI_Wait;
// - MPI_Rget under MPI_Win_lock_all, MPI_Win_flush_all, then reads the
//   result buffer before MPI_Wait;
// - MPI_Irecv, polled with MPI_Request_get_status until flag = true,
//   then reads the buffer before MPI_Wait;
// - once more an MPI_Rput whose request one thread waits for while the
//   main thread flushes the target, both ending the same operation.
// Follows MPI-4.1 §12.5.4 (a flush completes every outstanding operation
// to the target, request-based ones too; the request stays to be
// completed), §3.7.6 (MPI_Request_get_status with flag = true: the
// operation is complete) and §2.4.
// Correct: must produce no findings.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1024 };

static MPI_Request shared_req;

static void *waiter(void *arg)
{
    (void)arg;
    MPI_Wait(&shared_req, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    double *mem;
    MPI_Win win;
    MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    double *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in);
    int ok = 1;

    for (int i = 0; i < N; i++)
        out[i] = rank + i;
    MPI_Win_lock(MPI_LOCK_SHARED, other, 0, win);
    MPI_Request r;
    MPI_Rput(out, N, MPI_DOUBLE, other, 0, N, MPI_DOUBLE, win, &r);
    MPI_Win_flush(other, win);
    for (int i = 0; i < N; i++)
        out[i] = -1; /* complete at the origin: the buffer is the program's */
    MPI_Win_unlock(other, win);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    MPI_Rget(in, N, MPI_DOUBLE, other, 0, N, MPI_DOUBLE, win, &r);
    MPI_Win_flush_all(win);
    ok &= in[N - 1] == rank + N - 1; /* complete: the result (this rank's own put) is there */
    MPI_Win_unlock_all(win);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Irecv(in, N, MPI_DOUBLE, other, 5, MPI_COMM_WORLD, &r);
    for (int i = 0; i < N; i++)
        out[i] = rank * 10 + i;
    MPI_Send(out, N, MPI_DOUBLE, other, 5, MPI_COMM_WORLD);
    int flag = 0;
    while (!flag)
        MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
    ok &= in[N - 1] == other * 10 + N - 1;
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    for (int round = 0; round < 20; round++) {
        MPI_Win_lock(MPI_LOCK_SHARED, other, 0, win);
        MPI_Rput(out, N, MPI_DOUBLE, other, 0, N, MPI_DOUBLE, win, &shared_req);
        pthread_t t;
        pthread_create(&t, NULL, waiter, NULL);
        MPI_Win_flush(other, win);
        pthread_join(t, NULL);
        out[round] = round; /* both completed it */
        MPI_Win_unlock(other, win);
    }

    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(out);
    free(in);
    MPI_Finalize();
    if (!all)
        return 1;
    if (rank == 0)
        printf("ok_mt_flushed_and_get_status: OK\n");
    return 0;
}
