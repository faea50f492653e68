// ranks: 3
//
// ok_epoch_pscw_test.c: general active-target epochs (MPI-4.1 §12.5.2)
// done right, close to what the epoch-lifecycle bugs get wrong. Three
// rounds in which rank 0 exposes its window to ranks 1 and 2 and polls
// MPI_Win_test until it returns true (and stops polling then), while
// each of them starts an access epoch to rank 0, puts into its own slot
// and completes; a new MPI_Win_post opens each round. Then the roles
// turn with MPI_MODE_NOCHECK on both sides (the posts are done, a barrier
// says so, before rank 0's MPI_Win_start) and MPI_Win_wait. Then one rank
// is origin and target at once (post and start on the same window, as
// the advice of §12.5.2 shows). The window is freed after every epoch
// ended. Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define WIN 16
#define ROUNDS 3

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
    int rank, size, i, round, total, *mem, val, peers[2] = {1, 2}, zero = 0;
    long polls = 0;
    MPI_Win win;
    MPI_Group world, others, root;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 2, peers, &others);
    MPI_Group_incl(world, 1, &zero, &root);
    MPI_Win_allocate(WIN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (i = 0; i < WIN; i++)
        mem[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    for (round = 0; round < ROUNDS; round++) {
        if (rank == 0) {
            int flag = 0;
            MPI_Win_post(others, 0, win);
            while (!flag) {
                MPI_Win_test(win, &flag);
                polls++;
            }
            CHECK(mem[1] == 10 * round + 1 && mem[2] == 10 * round + 2, "rank 0: round %d: %d %d\n", round, mem[1],
                  mem[2]);
        } else if (rank <= 2) {
            val = 10 * round + rank;
            MPI_Win_start(root, 0, win);
            MPI_Put(&val, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
            MPI_Win_complete(win);
        }
    }

    if (rank == 1 || rank == 2)
        MPI_Win_post(root, MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        val = 77;
        MPI_Win_start(others, MPI_MODE_NOCHECK, win);
        MPI_Put(&val, 1, MPI_INT, 1, 5, 1, MPI_INT, win);
        MPI_Put(&val, 1, MPI_INT, 2, 5, 1, MPI_INT, win);
        MPI_Win_complete(win);
    } else if (rank <= 2) {
        MPI_Win_wait(win);
        CHECK(mem[5] == 77, "rank %d: mem[5] = %d\n", rank, mem[5]);
    }

    if (rank == 1 || rank == 2) {
        /* 1 and 2 swap a value, each origin and target at once */
        int other = 3 - rank, got = -1;
        MPI_Group g;
        MPI_Group_incl(world, 1, &other, &g);
        MPI_Win_post(g, 0, win);
        MPI_Win_start(g, 0, win);
        val = 100 + rank;
        MPI_Put(&val, 1, MPI_INT, other, 6, 1, MPI_INT, win);
        MPI_Get(&got, 1, MPI_INT, other, 5, 1, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        CHECK(mem[6] == 100 + other && got == 77, "rank %d: mem[6] = %d, got %d\n", rank, mem[6], got);
        MPI_Group_free(&g);
    }

    MPI_Win_free(&win);
    MPI_Group_free(&others);
    MPI_Group_free(&root);
    MPI_Group_free(&world);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0 && polls >= ROUNDS)
        printf("ok_epoch_pscw_test: OK\n");
    MPI_Finalize();
    return total != 0;
}
