// ranks: 3
//
// ok_rma_window_buffers.c: origin and result buffers that lie in window
// memory MPI allocated, used right. Each rank's MPI_Win_allocate window
// holds three rows of doubles: its own row, a ghost row and an inbox (a
// shared mapping with MPICH and with Open MPI's sm component). In a fence
// epoch every rank gets its right neighbour's row into its ghost row and
// puts its own row into its left neighbour's inbox, and reads its own
// row meanwhile (a load of a pending put's origin, and of bytes a remote
// get reads, is allowed); it reads ghost row and inbox after the closing
// fence. Under passive-target locks each rank gets its right neighbour's
// row again, reads it after MPI_Win_flush, puts its own row into the left
// neighbour's inbox and rewrites its own row only after
// MPI_Win_flush_local completed the put at the origin; barriers separate
// the rounds, and a rank reads its inbox under a lock on its own window.
// Then a node-shared window (MPI_Win_allocate_shared): each rank gets its
// right neighbour's segment into its own with MPI_Get under
// MPI_Win_lock_all, reads it after MPI_Win_flush, and reads the left
// neighbour's segment directly through MPI_Win_shared_query after
// MPI_Win_sync and a barrier (MPI-4.1 §12.2.3, §12.7: the unified model).
// MPI-4.1 §12.3 and §12.5: origin buffers may be read, result buffers
// touched only after the call that completes the operation at the origin.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

enum { N = 96 }; /* doubles per row */

static double value(int rank, int round, int i) { return 1000.0 * rank + 100.0 * round + i; }

int main(int argc, char **argv)
{
    int rank, size, total, i;
    double *base, *seg, *lseg, sum = 0;
    MPI_Win win, swin;
    MPI_Comm node;
    MPI_Aint lsize;
    int lunit;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    /* rows: base[0..N) own, base[N..2N) ghost, base[2N..3N) inbox */
    MPI_Win_allocate(3 * N * sizeof *base, sizeof *base, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (i = 0; i < 3 * N; i++)
        base[i] = i < N ? value(rank, 0, i) : -1;

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Get(&base[N], N, MPI_DOUBLE, right, 0, N, MPI_DOUBLE, win);
    MPI_Put(&base[0], N, MPI_DOUBLE, left, 2 * N, N, MPI_DOUBLE, win);
    for (i = 0; i < N; i++)
        sum += base[i]; /* the put's origin and the neighbour's get's target: loads only */
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (i = 0; i < N; i++) {
        CHECK(base[N + i] == value(right, 0, i), "rank %d: ghost[%d] %g after the fence\n", rank, i, base[N + i]);
        CHECK(base[2 * N + i] == value(right, 0, i), "rank %d: inbox[%d] %g after the fence\n", rank, i, base[2 * N + i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    for (int round = 1; round <= 2; round++) {
        MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
        MPI_Get(&base[N], N, MPI_DOUBLE, right, 0, N, MPI_DOUBLE, win);
        MPI_Win_flush(right, win);
        CHECK(base[N + 5] == value(right, round - 1, 5), "rank %d round %d: ghost holds %g\n", rank, round, base[N + 5]);
        MPI_Win_unlock(right, win);
        MPI_Barrier(MPI_COMM_WORLD); /* every get of the own rows is done */

        MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
        MPI_Put(&base[0], N, MPI_DOUBLE, left, 2 * N, N, MPI_DOUBLE, win);
        MPI_Win_flush_local(left, win);
        for (i = 0; i < N; i++)
            base[i] = value(rank, round, i); /* the put's origin is free again */
        MPI_Win_unlock(left, win);
        MPI_Barrier(MPI_COMM_WORLD); /* every put into an inbox is done */

        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        CHECK(base[2 * N + 7] == value(right, round - 1, 7), "rank %d round %d: inbox holds %g\n", rank, round,
              base[2 * N + 7]);
        MPI_Win_unlock(rank, win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);

    /* the node-shared window: a segment of two rows per rank */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    int nright = (nrank + 1) % nsize, nleft = (nrank + nsize - 1) % nsize;
    MPI_Win_allocate_shared(2 * N * sizeof *seg, sizeof *seg, MPI_INFO_NULL, node, &seg, &swin);
    MPI_Win_shared_query(swin, nleft, &lsize, &lunit, &lseg);
    MPI_Win_lock_all(0, swin);
    for (i = 0; i < 2 * N; i++)
        seg[i] = i < N ? value(nrank, 3, i) : -1;
    MPI_Win_sync(swin);
    MPI_Barrier(node);
    MPI_Win_sync(swin);
    MPI_Get(&seg[N], N, MPI_DOUBLE, nright, 0, N, MPI_DOUBLE, swin);
    CHECK(lseg[9] == value(nleft, 3, 9), "rank %d: the left segment holds %g\n", rank, lseg[9]);
    MPI_Win_flush(nright, swin);
    CHECK(seg[N + 9] == value(nright, 3, 9), "rank %d: the fetched row holds %g\n", rank, seg[N + 9]);
    MPI_Win_unlock_all(swin);
    MPI_Barrier(node);
    MPI_Win_free(&swin);
    MPI_Comm_free(&node);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_window_buffers: OK\n");
    MPI_Finalize();
    return total != 0 || sum < 0;
}
