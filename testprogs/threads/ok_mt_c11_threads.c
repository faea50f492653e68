// ranks: 2
// runs: 10
//
// ok_mt_c11_threads.c: 4 C11 threads (<threads.h>, MPI_THREAD_MULTIPLE)
// on rank 0 each count the primes in their part of a range and add the
// count into one total in rank 1's window: fetch the total with MPI_Get,
// flush, add, MPI_Put it back and flush, all under one C11 mutex
// (mtx_lock), inside MPI_Win_lock_all. The mutex orders the
// read-modify-write sequences, and each flush completes the put at the
// target before the mutex is released, so the program is correct
// (MPI-4.1 §12.7; §3.5 for threads). mpidbg does not follow C11
// synchronisation (glibc builds it on internal functions the shim
// cannot wrap): the first C11 call turns its thread clocks off, and the
// program must still be clean.
// Expected: no findings.
#include <mpi.h>
#include <stdio.h>
#include <threads.h>

enum { THREADS = 4, RANGE = 20000 };

static MPI_Win win;
static mtx_t total_mu;

static int is_prime(int n)
{
    if (n < 2)
        return 0;
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

static int worker(void *arg)
{
    int t = (int)(long)arg, count = 0;
    for (int n = t * (RANGE / THREADS); n < (t + 1) * (RANGE / THREADS); n++)
        count += is_prime(n);
    mtx_lock(&total_mu);
    int total = 0;
    MPI_Get(&total, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    total += count;
    MPI_Put(&total, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    mtx_unlock(&total_mu);
    return 0;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_c11_threads: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    mtx_init(&total_mu, mtx_plain);
    int mem[2] = {0, 0};
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        thrd_t th[THREADS];
        for (long t = 0; t < THREADS; t++)
            thrd_create(&th[t], worker, (void *)t);
        for (int t = 0; t < THREADS; t++)
            thrd_join(th[t], NULL);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        if (mem[0] == 2262)
            printf("ok_mt_c11_threads: OK\n");
        else
            printf("ok_mt_c11_threads: total %d, want 2262\n", mem[0]);
    }
    MPI_Win_free(&win);
    mtx_destroy(&total_mu);
    MPI_Finalize();
    return 0;
}
