// ranks: 3
//
// ok_rma_vector_even_odd.c: two origins write interleaved elements of one
// target array in the same fence epoch. Rank 1 puts 8 ints into the even
// elements of rank 0's 16-int window, rank 2 into the odd ones, both with
// the target datatype MPI_Type_vector(8, 1, 2, MPI_INT) (displacements 0
// and 1). Their bounds overlap but no byte is written twice, so the
// accesses do not conflict (MPI-4.1 §12.7 is about memory locations, not
// bounds). Correct: must produce no findings.
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
    int rank, total, i;
    MPI_Win win;
    MPI_Datatype every_other;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(8, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);

    int *slots = calloc(16, sizeof *slots);
    int *src = malloc(8 * sizeof *src);
    for (i = 0; i < 8; i++)
        src[i] = 100 * rank + i;
    MPI_Win_create(slots, 16 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank != 0)
        MPI_Put(src, 8, MPI_INT, 0, rank - 1, 1, every_other, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        for (i = 0; i < 16; i++)
            CHECK(slots[i] == 100 * (i % 2 + 1) + i / 2, "rank 0: slot %d holds %d\n", i, slots[i]);
    MPI_Win_free(&win);
    MPI_Type_free(&every_other);
    free(slots);
    free(src);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_vector_even_odd: OK\n");
    MPI_Finalize();
    return total != 0;
}
