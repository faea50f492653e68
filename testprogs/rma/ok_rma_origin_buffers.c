// ranks: 3
//
// ok_rma_origin_buffers.c: one-sided origin and result buffers shared
// with other operations the way MPI-4.1 §12.3 and §3.7.2 allow:
//   1. rank 0 gets two neighbours' rows into the two halves of one
//      scratch buffer in one fence epoch (disjoint bytes), then sends the
//      buffer on after the fence completed the gets;
//   2. under MPI_Win_lock_all it puts a block to rank 1 and sends the same
//      block to rank 2 at once (both only read it: MPI-3.0 allows
//      concurrent sends from one buffer, and puts with overlapping origin
//      buffers), then, after MPI_Win_flush_local completed the put at the
//      origin, receives rank 2's answer into that block;
//   3. it gets into a buffer with MPI_Rget, waits for the request, then
//      receives into the buffer; gets from MPI_PROC_NULL (MPI touches no
//      buffer) into a buffer it receives into at the same time.
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

enum { COLS = 16 };

int main(int argc, char **argv)
{
    int rank, size, total;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    double *mem;
    MPI_Win_allocate(2 * COLS * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < 2 * COLS; i++)
        mem[i] = rank * 100 + i;
    double halo[2 * COLS], block[COLS], got[COLS];

    /* 1 */
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Get(halo, COLS, MPI_DOUBLE, size - 1, 0, COLS, MPI_DOUBLE, win);
        MPI_Get(halo + COLS, COLS, MPI_DOUBLE, 1, 0, COLS, MPI_DOUBLE, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 0) {
        CHECK(halo[3] == (size - 1) * 100 + 3 && halo[COLS + 3] == 103, "rank 0: halo holds %g %g\n", halo[3], halo[COLS + 3]);
        MPI_Send(halo, 2 * COLS, MPI_DOUBLE, 2, 0, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Recv(halo, 2 * COLS, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(halo[COLS + 3] == 103, "rank 2: forwarded halo holds %g\n", halo[COLS + 3]);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2 */
    for (int i = 0; i < COLS; i++)
        block[i] = rank + 0.5 * i;
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Put(block, COLS, MPI_DOUBLE, 1, COLS, COLS, MPI_DOUBLE, win);
        MPI_Isend(block, COLS, MPI_DOUBLE, 2, 1, MPI_COMM_WORLD, &req);
        MPI_Win_flush_local(1, win);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Recv(block, COLS, MPI_DOUBLE, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(block[2] == 2 + 1.0, "rank 0: answer holds %g\n", block[2]);
        MPI_Win_flush(1, win);
    } else if (rank == 2) {
        MPI_Recv(got, COLS, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got[2] == 1.0, "rank 2: block holds %g\n", got[2]);
        MPI_Send(block, COLS, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3 */
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Rget(got, COLS, MPI_DOUBLE, 1, 0, COLS, MPI_DOUBLE, win, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Win_unlock(1, win);
        CHECK(got[4] == 104, "rank 0: rget gave %g\n", got[4]);
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Get(got, COLS, MPI_DOUBLE, MPI_PROC_NULL, 0, COLS, MPI_DOUBLE, win);
        MPI_Irecv(got, COLS, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, &req);
        MPI_Win_unlock(1, win);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(got[4] == 1004, "rank 0: received %g\n", got[4]);
    } else if (rank == 1) {
        for (int i = 0; i < COLS; i++)
            got[i] = 1000 + i;
        MPI_Send(got, COLS, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_origin_buffers: OK\n");
    MPI_Finalize();
    return total != 0;
}
