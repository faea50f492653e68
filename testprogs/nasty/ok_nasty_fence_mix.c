// ranks: 3
//
// ok_nasty_fence_mix.c: one-sided communication in active-target epochs
// that a forcing MPI may reorder, split and delay without changing the
// result, because the program synchronises right (MPI-4.1 §12.5.1 fence,
// §12.5.2 post/start/complete/wait, §12.7 ordering):
//   - fence epoch 1: each rank puts 8 ints to its right neighbour and gets
//     8 ints from its left neighbour (multi-element: split by --nasty),
//     and accumulates into its own slots of rank 0 in an order-sensitive
//     sequence (MPI_REPLACE, then MPI_SUM twice, one and four elements:
//     accumulates from one origin to one location keep their order,
//     §12.7.2); the put's origin buffer is overwritten after the fence;
//   - fence epoch 2: a put through a derived origin datatype (a vector),
//     freed before the fence (allowed, §5.1.10), and a get into a vector;
//   - a post/start/complete/wait epoch on a ring: MPI_Get_accumulate,
//     MPI_Fetch_and_op and MPI_Compare_and_swap on the neighbour, each
//     on its own location.
// Every result is checked after the epoch that completes it. Correct: no
// findings, natively, under mpidbg and under --nasty with every order.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 64, PUTS = 0, GETS = 16, ACC1 = 32, ACC4 = 40, VEC = 56 };

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
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    int *mem = malloc(N * sizeof *mem);
    for (int i = 0; i < N; i++)
        mem[i] = -1;
    for (int i = 0; i < 8; i++)
        mem[GETS + i] = 1000 * rank + i;
    MPI_Win_create(mem, N * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    /* epoch 1 */
    int out[8], in[8], v = 10 * rank, five = 5, four[4], sum4[4];
    for (int i = 0; i < 8; i++) {
        out[i] = 100 * rank + i;
        in[i] = -2;
    }
    for (int i = 0; i < 4; i++) {
        four[i] = rank + i;
        sum4[i] = 1;
    }
    MPI_Win_fence(0, win);
    MPI_Put(out, 8, MPI_INT, right, PUTS, 8, MPI_INT, win);
    MPI_Get(in, 8, MPI_INT, left, GETS, 8, MPI_INT, win);
    MPI_Accumulate(&v, 1, MPI_INT, 0, ACC1 + rank, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Accumulate(&five, 1, MPI_INT, 0, ACC1 + rank, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(&rank, 1, MPI_INT, 0, ACC1 + rank, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(four, 4, MPI_INT, 0, ACC4 + 4 * (rank % 4), 4, MPI_INT, MPI_REPLACE, win);
    MPI_Accumulate(sum4, 4, MPI_INT, 0, ACC4 + 4 * (rank % 4), 4, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 8; i++)
        out[i] = -3; /* the put is complete: its buffer is the program's again */
    for (int i = 0; i < 8; i++) {
        CHECK(mem[PUTS + i] == 100 * left + i, "rank %d: put element %d is %d\n", rank, i, mem[PUTS + i]);
        CHECK(in[i] == 1000 * left + i, "rank %d: get element %d is %d\n", rank, i, in[i]);
    }
    if (rank == 0)
        for (int r = 0; r < size; r++) {
            CHECK(mem[ACC1 + r] == 10 * r + 5 + r, "rank 0: accumulates of rank %d gave %d\n", r, mem[ACC1 + r]);
            for (int i = 0; i < 4; i++)
                CHECK(mem[ACC4 + 4 * r + i] == r + i + 1, "rank 0: 4-element accumulates of rank %d gave %d at %d\n", r,
                      mem[ACC4 + 4 * r + i], i);
        }

    /* epoch 2: derived datatypes, one freed while its put is pending */
    MPI_Datatype every2, vec_in;
    int spread[8], gathered[8];
    for (int i = 0; i < 8; i++) {
        spread[i] = i % 2 ? -4 : 10 * rank + i / 2;
        gathered[i] = -5;
    }
    MPI_Type_vector(4, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec_in);
    MPI_Type_commit(&vec_in);
    MPI_Win_fence(0, win);
    MPI_Put(spread, 1, every2, right, VEC, 4, MPI_INT, win);
    MPI_Type_free(&every2);
    MPI_Get(gathered, 1, vec_in, right, GETS, 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Type_free(&vec_in);
    for (int i = 0; i < 4; i++) {
        CHECK(mem[VEC + i] == 10 * left + i, "rank %d: vector put element %d is %d\n", rank, i, mem[VEC + i]);
        CHECK(gathered[2 * i] == 1000 * right + i, "rank %d: vector get element %d is %d\n", rank, i, gathered[2 * i]);
        CHECK(gathered[2 * i + 1] == -5, "rank %d: vector get wrote a gap\n", rank);
    }

    /* a post/start/complete/wait epoch on the ring: this rank's operations
     * go to its right neighbour, its window is exposed to its left one */
    MPI_Group world, to, from;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &right, &to);
    MPI_Group_incl(world, 1, &left, &from);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    mem[ACC1] = 7;
    mem[ACC1 + 1] = 20;
    mem[ACC1 + 2] = 30;
    int add = 3, got_ga = -1, got_fop = -1, got_cas = -1, mine = 100 + rank, expect = 30;
    MPI_Win_post(from, 0, win);
    MPI_Win_start(to, 0, win);
    MPI_Get_accumulate(&add, 1, MPI_INT, &got_ga, 1, MPI_INT, right, ACC1, 1, MPI_INT, MPI_SUM, win);
    MPI_Fetch_and_op(&add, &got_fop, MPI_INT, right, ACC1 + 1, MPI_SUM, win);
    MPI_Compare_and_swap(&mine, &expect, &got_cas, MPI_INT, right, ACC1 + 2, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    CHECK(got_ga == 7 && got_fop == 20 && got_cas == 30, "rank %d: fetched %d %d %d\n", rank, got_ga, got_fop, got_cas);
    CHECK(mem[ACC1] == 10 && mem[ACC1 + 1] == 23 && mem[ACC1 + 2] == 100 + left, "rank %d: updated to %d %d %d\n", rank,
          mem[ACC1], mem[ACC1 + 1], mem[ACC1 + 2]);
    MPI_Group_free(&to);
    MPI_Group_free(&from);
    MPI_Group_free(&world);

    MPI_Win_free(&win);
    free(mem);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_nasty_fence_mix: OK\n");
    MPI_Finalize();
    return total != 0;
}
