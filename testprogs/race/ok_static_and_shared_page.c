// ranks: 2
//
// ok_static_and_shared_page.c: buffers in static memory, with neighbours
// on the same page that the program reads and writes while operations on
// the buffers are pending; the program reads a pending send buffer
// (legal since MPI-3.0: MPI-4.1 §3.7.2 forbids only modifying it); sends
// the same buffer twice at once (two pending reads); sends a constant
// table from read-only memory; and a heap buffer with a heap neighbour.
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

static int before[16];
static int sendbuf[64];
static int between[16];
static int recvbuf[64];
static int after[16];
static const int table[8] = {2, 3, 5, 7, 11, 13, 17, 19};

int main(int argc, char **argv)
{
    int rank, total, peer;
    long sum = 0;
    MPI_Request r[6];
    MPI_Status st[6];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = rank ^ 1;
    for (int i = 0; i < 64; i++) {
        sendbuf[i] = 1000 * rank + i;
        recvbuf[i] = -1;
    }
    int *heap = malloc(100 * sizeof *heap), *other = malloc(100 * sizeof *other);
    int *heapin = malloc(100 * sizeof *heapin);
    for (int i = 0; i < 100; i++)
        heap[i] = rank * 7 + i;

    MPI_Irecv(recvbuf, 64, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(sendbuf, 64, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(sendbuf, 64, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(table, 8, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[3]);
    MPI_Isend(heap, 100, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[4]);
    MPI_Irecv(heapin, 100, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[5]);
    for (int i = 0; i < 16; i++) {
        before[i] = i;
        between[i] = before[i] * 2;
        after[i] = between[i] + 1;
    }
    for (int i = 0; i < 64; i++)
        sum += sendbuf[i]; // reading a pending send buffer is allowed
    for (int i = 0; i < 100; i++)
        other[i] = heap[i] + 1;
    MPI_Waitall(2, r, st);
    CHECK(recvbuf[63] == 1000 * peer + 63, "rank %d: recvbuf[63] = %d\n", rank, recvbuf[63]);

    int again[64], consts[8];
    MPI_Recv(again, 64, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(consts, 8, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(4, r + 2, st);
    CHECK(again[5] == 1000 * peer + 5 && consts[7] == 19, "rank %d: again %d consts %d\n", rank, again[5], consts[7]);
    CHECK(heapin[99] == peer * 7 + 99 && other[0] == rank * 7 + 1, "rank %d: heap %d\n", rank, heapin[99]);
    CHECK(sum == 64 * 1000L * rank + 2016 && after[15] == 31, "rank %d: sum %ld\n", rank, sum);

    free(heap);
    free(other);
    free(heapin);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_static_and_shared_page: OK\n");
    MPI_Finalize();
    return total != 0;
}
