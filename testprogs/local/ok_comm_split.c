// ranks: 4
//
// ok_comm_split.c: communicator management done right: MPI_Comm_split by
// parity (ranks reversed by the key), MPI_Comm_dup of the result, a group
// made with MPI_Comm_group + MPI_Group_incl and a communicator with
// MPI_Comm_create (MPI_COMM_NULL on the ranks outside it, which is tested),
// collectives on each; every group and communicator is freed.
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
    int rank, size, total, srank, ssize, sum, cmp, first[2] = {0, 1};
    MPI_Comm half, copy, pair;
    MPI_Group world, g01;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Comm_rank(half, &srank);
    MPI_Comm_size(half, &ssize);
    int expect = 0, r;
    for (r = rank % 2; r < size; r += 2)
        expect += r;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    CHECK(sum == expect, "rank %d: split sum %d, want %d\n", rank, sum, expect);
    CHECK(srank == (ssize - 1) - rank / 2, "rank %d: split rank %d\n", rank, srank);

    MPI_Comm_dup(half, &copy);
    MPI_Comm_compare(half, copy, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "rank %d: dup not congruent\n", rank);
    int root_val = srank == 0 ? 1000 + rank : -1;
    MPI_Bcast(&root_val, 1, MPI_INT, 0, copy);
    CHECK(root_val >= 1000, "rank %d: bcast on dup %d\n", rank, root_val);

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 2, first, &g01);
    MPI_Comm_create(MPI_COMM_WORLD, g01, &pair);
    if (rank < 2) {
        CHECK(pair != MPI_COMM_NULL, "rank %d: not in pair\n", rank);
        int one = 1, n = 0;
        MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, pair);
        CHECK(n == 2, "rank %d: pair size %d\n", rank, n);
        MPI_Comm_free(&pair);
    } else {
        CHECK(pair == MPI_COMM_NULL, "rank %d: unexpectedly in pair\n", rank);
    }

    MPI_Group_free(&g01);
    MPI_Group_free(&world);
    MPI_Comm_free(&copy);
    MPI_Comm_free(&half);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_comm_split: OK\n");
    MPI_Finalize();
    return total != 0;
}
