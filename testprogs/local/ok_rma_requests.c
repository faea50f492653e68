// ranks: 2
//
// ok_rma_requests.c: request-based one-sided operations in a passive
// target epoch: MPI_Win_lock_all, MPI_Rput into the peer's window,
// MPI_Rget from it into a local buffer, MPI_Raccumulate; the requests are
// completed with MPI_Wait/MPI_Waitall, then MPI_Win_flush_all and
// MPI_Win_unlock_all; a barrier, and each rank reads what its peer put.
// The window (MPI_Win_allocate, 16 ints) is freed.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

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
    int rank, total, i, put = 0, got = -1, one = 1, *mem;
    MPI_Win win;
    MPI_Request r[2], rg;
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock_all(0, win);
    for (i = 0; i < 16; i++)
        mem[i] = i == 1 ? 100 + rank : 0;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);

    put = 10 + rank;
    MPI_Rput(&put, 1, MPI_INT, peer, 0, 1, MPI_INT, win, &r[0]);
    MPI_Raccumulate(&one, 1, MPI_INT, peer, 2, 1, MPI_INT, MPI_SUM, win, &r[1]);
    MPI_Rget(&got, 1, MPI_INT, peer, 1, 1, MPI_INT, win, &rg);
    MPI_Wait(&rg, MPI_STATUS_IGNORE);
    CHECK(got == 100 + peer, "rank %d: rget %d\n", rank, got);
    MPI_Waitall(2, r, st);
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    CHECK(mem[0] == 10 + peer && mem[2] == 1, "rank %d: window holds %d %d\n", rank, mem[0], mem[2]);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_requests: OK\n");
    MPI_Finalize();
    return total != 0;
}
