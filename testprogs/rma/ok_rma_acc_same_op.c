// ranks: 4
//
// ok_rma_acc_same_op.c: concurrent accumulates that MPI allows. In one
// fence epoch every rank adds 1 to slot 0 of rank 0's window with
// MPI_Accumulate(MPI_SUM, MPI_INT), reads slot 0 atomically with
// MPI_Get_accumulate(MPI_NO_OP), adds its rank to slot 1 with
// MPI_Fetch_and_op(MPI_SUM), swaps slot 2 from 0 to its rank + 1 with
// MPI_Compare_and_swap, and writes slot 3 with MPI_Accumulate(MPI_REPLACE).
// MPI-4.1 §12.7: concurrent accumulate-family operations on one location
// with the same predefined datatype and the same op (or MPI_NO_OP) are
// atomic, element by element; none of this conflicts. Correct: must
// produce no findings.
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
    int rank, size, total;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *slots = calloc(4, sizeof *slots);
    int *in = malloc(4 * sizeof *in), *out = malloc(4 * sizeof *out);
    in[0] = 1;
    in[1] = rank;
    in[2] = rank + 1;
    in[3] = 0;
    MPI_Win_create(slots, 4 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Accumulate(&in[0], 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &out[0], 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Fetch_and_op(&in[1], &out[1], MPI_INT, 0, 1, MPI_SUM, win);
    MPI_Compare_and_swap(&in[2], &in[3], &out[2], MPI_INT, 0, 2, win);
    MPI_Accumulate(&in[2], 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Win_fence(0, win);
    CHECK(out[0] >= 0 && out[0] <= size, "rank %d: atomic read gave %d\n", rank, out[0]);
    if (rank == 0) {
        CHECK(slots[0] == size, "rank 0: slot 0 holds %d\n", slots[0]);
        CHECK(slots[1] == size * (size - 1) / 2, "rank 0: slot 1 holds %d\n", slots[1]);
        CHECK(slots[2] >= 1 && slots[2] <= size, "rank 0: slot 2 holds %d\n", slots[2]);
        CHECK(slots[3] >= 1 && slots[3] <= size, "rank 0: slot 3 holds %d\n", slots[3]);
    }
    MPI_Win_free(&win);
    free(slots);
    free(in);
    free(out);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_acc_same_op: OK\n");
    MPI_Finalize();
    return total != 0;
}
