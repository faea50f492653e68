/* One-sided rounds with the target computing on its window memory:
 * every rank but 0 puts 1 KiB into rank 0's 64 KiB window, rank 0 then
 * sums the whole window with plain loads. Two forms, median time per
 * round in microseconds:
 *   rma_lock_round: MPI_Win_lock(shared)/MPI_Put/MPI_Win_unlock, then a
 *     barrier, the sum, a barrier (passive target);
 *   rma_fence_round: MPI_Win_fence, MPI_Put, MPI_Win_fence, the sum.
 * What mpidbg adds here is the origin-side record and the watch of the
 * target's own accesses (shim/rma_passive.c, shim/rma_target.c), which
 * faults on the sum's loads in sampled periods. */
#include "common.h"

enum { N = 8192, CHUNK = 128, BATCHES = 21, ITERS = 50 };

static volatile double sink;

static double sum(const double *w)
{
    double s = 0;
    for (int i = 0; i < N; i++)
        s += w[i];
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    double *win_mem, buf[CHUNK], samples[BATCHES];
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
    for (int i = 0; i < N; i++)
        win_mem[i] = 0;
    for (int i = 0; i < CHUNK; i++)
        buf[i] = rank + i;
    int at = (rank * CHUNK) % N;

    for (int b = -1; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < ITERS; it++) {
            if (rank != 0) {
                MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
                MPI_Put(buf, CHUNK, MPI_DOUBLE, 0, at, CHUNK, MPI_DOUBLE, win);
                MPI_Win_unlock(0, win);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0)
                sink = sum(win_mem);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        if (b >= 0)
            samples[b] = (MPI_Wtime() - t0) / ITERS * 1e6;
    }
    result("rma_lock_round", median(samples, BATCHES), "us");

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int b = -1; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < ITERS; it++) {
            if (rank != 0)
                MPI_Put(buf, CHUNK, MPI_DOUBLE, 0, at, CHUNK, MPI_DOUBLE, win);
            MPI_Win_fence(0, win);
            if (rank == 0)
                sink = sum(win_mem);
            MPI_Win_fence(0, win);
        }
        if (b >= 0)
            samples[b] = (MPI_Wtime() - t0) / ITERS * 1e6;
    }
    result("rma_fence_round", median(samples, BATCHES), "us");
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
