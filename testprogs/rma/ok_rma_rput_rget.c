// ranks: 2
//
// ok_rma_rput_rget.c: request-based operations done right. Under
// MPI_Win_lock_all each rank puts from a heap buffer into slot 0 of its
// peer with MPI_Rput, waits for the request (local completion: the
// buffer may be reused, MPI-4.1 §12.3.5), writes the next value into the
// same buffer and puts it into slot 1; MPI_Win_flush completes both at
// the target; then MPI_Rget of the peer's slot 2 into another buffer,
// read only after MPI_Wait. A barrier, and each rank reads what its peer
// put under MPI_Win_sync. Correct: must produce no findings.
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

int main(int argc, char **argv)
{
    int rank, total;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    int *slots = calloc(4, sizeof *slots);
    slots[2] = 50 + rank;
    int *buf = malloc(sizeof *buf), *got = malloc(sizeof *got);
    MPI_Win_create(slots, 4 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    *buf = 10 + rank;
    MPI_Rput(buf, 1, MPI_INT, peer, 0, 1, MPI_INT, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    *buf = 20 + rank;
    MPI_Rput(buf, 1, MPI_INT, peer, 1, 1, MPI_INT, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_flush(peer, win);
    MPI_Rget(got, 1, MPI_INT, peer, 2, 1, MPI_INT, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(*got == 50 + peer, "rank %d: rget gave %d\n", rank, *got);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    CHECK(slots[0] == 10 + peer && slots[1] == 20 + peer, "rank %d: window holds %d %d\n", rank, slots[0], slots[1]);
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);
    free(slots);
    free(buf);
    free(got);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_rput_rget: OK\n");
    MPI_Finalize();
    return total != 0;
}
