// ranks: 2
//
// ok_rma_small_window.c: a ring of counters in a window of a few bytes on
// the heap, one window per phase of the program. Each rank exposes four
// int counters (calloc'd, 16 bytes, sharing a page with whatever the heap
// holds next to them, the MPI library's and mpidbg's own state included).
// Every round, outside any epoch, the rank clears its counters and sets a
// marker; then both neighbours add 1 to one counter with
// MPI_Accumulate(MPI_SUM), in a fence epoch (opened with
// MPI_Win_fence(MPI_MODE_NOPRECEDE), closed with
// MPI_Win_fence(MPI_MODE_NOSUCCEED)) in even phases, in a
// post/start/complete/wait epoch in odd ones; after the fence, or
// MPI_Win_wait, the rank reads its counters. MPI-4.1 §12.5: local loads
// and stores outside epochs, and after the call that completes the
// updates, are correct; concurrent accumulates with the same op and basic
// type are allowed (§12.7). Correct: must produce no findings. (The
// tracker logs these local accesses, a fault each; its fault handler must
// never itself touch a page it protects, such as this small window's.)
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

enum { NCOUNT = 4, PHASES = 12, ROUNDS = 3 };

int main(int argc, char **argv)
{
    int rank, size, total, one = 1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int nb[2] = {left, right};
    MPI_Group world, peers;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, left == right ? 1 : 2, nb, &peers);

    /* one window per phase, as a program that sets up its exchange anew
     * for each stage of a computation */
    for (int phase = 0; phase < PHASES; phase++) {
        /* the phase's scratch data, of a size that varies, then its counters */
        double *scratch = malloc((size_t)(8 + 40 * phase) * sizeof *scratch);
        for (int i = 0; i < 8 + 40 * phase; i++)
            scratch[i] = rank + i;
        int *count = calloc(NCOUNT, sizeof *count);
        MPI_Win_create(count, NCOUNT * sizeof *count, sizeof *count, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        for (int round = 0; round < ROUNDS; round++) {
            int c = (phase + round) % NCOUNT, m = (c + 1) % NCOUNT;
            for (int i = 0; i < NCOUNT; i++)
                count[i] = 0;
            count[m] = -1; /* untouched by the neighbours this round */
            if (phase % 2 == 0)
                MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
            else {
                MPI_Win_post(peers, 0, win);
                MPI_Win_start(peers, 0, win);
            }
            MPI_Accumulate(&one, 1, MPI_INT, left, c, 1, MPI_INT, MPI_SUM, win);
            MPI_Accumulate(&one, 1, MPI_INT, right, c, 1, MPI_INT, MPI_SUM, win);
            if (phase % 2 == 0)
                MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
            else {
                MPI_Win_complete(win);
                MPI_Win_wait(win);
            }
            CHECK(count[c] == 2, "rank %d phase %d round %d: counter holds %d, want 2\n", rank, phase, round, count[c]);
            CHECK(count[m] == -1, "rank %d phase %d round %d: marker holds %d\n", rank, phase, round, count[m]);
        }
        MPI_Win_free(&win);
        CHECK(scratch[7] == rank + 7, "rank %d phase %d: scratch changed\n", rank, phase);
        free(count);
        free(scratch);
    }
    MPI_Group_free(&peers);
    MPI_Group_free(&world);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_small_window: OK\n");
    MPI_Finalize();
    return total != 0;
}
