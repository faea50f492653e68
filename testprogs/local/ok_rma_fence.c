// ranks: 3
//
// ok_rma_fence.c: one-sided communication in fence epochs. A window over a
// malloc'd array (MPI_Win_create): each rank puts its rank into slot 0 of
// its right neighbour, gets slot 1 of its left neighbour, and adds 1 to
// slot 2 of rank 0 with MPI_Accumulate, all between two MPI_Win_fence
// calls; then a second window from MPI_Win_allocate with one put
// (fences with MPI_MODE_NOPRECEDE / MPI_MODE_NOSUCCEED). Checks
// the results after the closing fences; frees both windows.
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

int main(int argc, char **argv)
{
    int rank, size, total, one = 1, got = -1, *mem;
    MPI_Win win, win2;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    int *slots = malloc(3 * sizeof *slots);
    slots[0] = -1;
    slots[1] = 100 + rank;
    slots[2] = 0;
    MPI_Win_create(slots, 3 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Get(&got, 1, MPI_INT, left, 1, 1, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    CHECK(slots[0] == left, "rank %d: put gave %d\n", rank, slots[0]);
    CHECK(got == 100 + left, "rank %d: get gave %d\n", rank, got);
    if (rank == 0)
        CHECK(slots[2] == size, "rank 0: accumulate gave %d\n", slots[2]);
    MPI_Win_free(&win);
    free(slots);

    // 16 ints although one is used: MPICH 4.0.2 (ch4:ucx) misplaces the puts
    // into a 4-byte MPI_Win_allocate window on one node
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win2);
    *mem = -1;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win2);
    MPI_Put(&rank, 1, MPI_INT, left, 0, 1, MPI_INT, win2);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win2);
    CHECK(*mem == right, "rank %d: allocated window holds %d\n", rank, *mem);
    MPI_Win_free(&win2);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_fence: OK\n");
    MPI_Finalize();
    return total != 0;
}
