// ranks: 2
// cflags: -pthread
//
// ok_c11_sync_beside_pending.c: a two-stage pipeline in C11 threads.
// The rank's stage state is one static structure: the halo receive
// buffer, then the C11 mutex and condition variable its worker thread
// (thrd_create) uses to hand over each computed block. While the halo
// receive is pending, the main thread waits for the worker's block with
// cnd_timedwait (and cnd_wait), the worker signals with cnd_signal and
// cnd_broadcast under mtx_lock/mtx_unlock.
// Follows MPI-4.1 §3.7.2: the receive buffer is not touched before
// MPI_Wait; the mutex and condition variable beside it are the
// program's own.
// Correct: must produce no findings, and must not abort (glibc sleeps on
// a condition variable in futex(2), which fails with EFAULT on a page
// the checker protects, and glibc then aborts the process).
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <threads.h>
#include <time.h>

enum { N = 64, BLOCKS = 20 };

static struct {
    double halo[N];
    mtx_t m;
    cnd_t ready;
    int produced, consumed;
    double block[N];
} stage;

static int worker(void *arg)
{
    (void)arg;
    for (int b = 0; b < BLOCKS; b++) {
        mtx_lock(&stage.m);
        while (stage.produced != stage.consumed)
            cnd_wait(&stage.ready, &stage.m);
        for (int i = 0; i < N; i++)
            stage.block[i] = b + i;
        stage.produced++;
        if (b % 2)
            cnd_broadcast(&stage.ready);
        else
            cnd_signal(&stage.ready);
        mtx_unlock(&stage.m);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mtx_init(&stage.m, mtx_plain);
    cnd_init(&stage.ready);
    thrd_t t;
    if (thrd_create(&t, worker, NULL) != thrd_success)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int left = (rank + size - 1) % size, right = (rank + 1) % size, ok = 1;
    double out[N];
    for (int b = 0; b < BLOCKS; b++) {
        MPI_Request r;
        MPI_Irecv(stage.halo, N, MPI_DOUBLE, left, b, MPI_COMM_WORLD, &r);
        mtx_lock(&stage.m);
        while (stage.produced == stage.consumed) {
            struct timespec until;
            timespec_get(&until, TIME_UTC);
            until.tv_nsec += 2000000;
            if (until.tv_nsec >= 1000000000) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000;
            }
            cnd_timedwait(&stage.ready, &stage.m, &until);
        }
        for (int i = 0; i < N; i++)
            out[i] = stage.block[i] + rank * 1000;
        stage.consumed++;
        cnd_signal(&stage.ready);
        mtx_unlock(&stage.m);
        MPI_Send(out, N, MPI_DOUBLE, right, b, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        ok &= stage.halo[N - 1] == left * 1000 + b + N - 1;
    }
    thrd_join(t, NULL);
    cnd_destroy(&stage.ready);
    mtx_destroy(&stage.m);
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Finalize();
    if (!all)
        return 1;
    if (rank == 0)
        printf("ok_c11_sync_beside_pending: OK\n");
    return 0;
}
