// ranks: 3
//
// ok_rma_pscw.c: general active-target synchronisation done right. First
// rank 0 exposes its window to ranks 1 and 2 (MPI_Win_post/MPI_Win_wait):
// each puts its rank into its own slot, both add 1 to slot 0 with
// MPI_Accumulate(MPI_SUM) (concurrent accumulates with the same op and
// basic type are allowed, MPI-4.1 §12.7), and both get slot 3, which
// nobody writes in the epoch (MPI_Win_start/MPI_Win_complete, heap
// buffers). Rank 0 touches its window only after MPI_Win_wait. Then the
// roles turn: rank 0 puts into slot 1 of ranks 1 and 2, which wait with
// an MPI_Win_test loop and store into their windows only after it said
// the epoch is over. Correct: must produce no findings.
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
    int rank, total, flag = 0, zero = 0, peers[2] = {1, 2};
    MPI_Win win;
    MPI_Group world, others, root;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 2, peers, &others);
    MPI_Group_incl(world, 1, &zero, &root);

    int *slots = calloc(4, sizeof *slots);
    slots[3] = 30 + rank;
    int *buf = malloc(3 * sizeof *buf);
    MPI_Win_create(slots, 4 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    if (rank == 0) {
        MPI_Win_post(others, 0, win);
        MPI_Win_wait(win);
        CHECK(slots[0] == 2 && slots[1] == 1 && slots[2] == 2, "rank 0: window holds %d %d %d\n", slots[0], slots[1],
              slots[2]);
        slots[3] = 0;
    } else {
        buf[0] = rank;
        buf[1] = 1;
        buf[2] = -1;
        MPI_Win_start(root, 0, win);
        MPI_Put(&buf[0], 1, MPI_INT, 0, rank, 1, MPI_INT, win);
        MPI_Accumulate(&buf[1], 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Get(&buf[2], 1, MPI_INT, 0, 3, 1, MPI_INT, win);
        MPI_Win_complete(win);
        CHECK(buf[2] == 30, "rank %d: get gave %d\n", rank, buf[2]);
    }

    if (rank == 0) {
        buf[0] = 77;
        MPI_Win_start(others, 0, win);
        MPI_Put(&buf[0], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        MPI_Put(&buf[0], 1, MPI_INT, 2, 1, 1, MPI_INT, win);
        MPI_Win_complete(win);
        buf[0] = 0;
    } else {
        MPI_Win_post(root, 0, win);
        while (!flag)
            MPI_Win_test(win, &flag);
        CHECK(slots[1] == 77, "rank %d: slot 1 holds %d\n", rank, slots[1]);
        slots[1] = 0;
    }

    MPI_Win_free(&win);
    MPI_Group_free(&others);
    MPI_Group_free(&root);
    MPI_Group_free(&world);
    free(slots);
    free(buf);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_pscw: OK\n");
    MPI_Finalize();
    return total != 0;
}
