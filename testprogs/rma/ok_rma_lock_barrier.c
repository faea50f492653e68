// ranks: 4
//
// ok_rma_lock_barrier.c: passive-target epochs ordered by barriers. Six
// rounds, an MPI_Barrier after each. In even rounds every rank but 0 locks
// rank 0's window (MPI_LOCK_SHARED), puts a value into its own slot and
// one of them (a different one each round) also into the shared slot 0,
// then unlocks. In odd rounds every rank but 0 gets slot 0 and its own
// slot under a shared lock and checks what the round before wrote. Puts
// to slot 0 by different ranks, and gets of what others put, are in
// different rounds: the unlock completes each operation at the target and
// the barrier orders it before the next round's (MPI-4.1 §12.5.3, §12.7).
// At the end rank 0 reads its window under an exclusive lock on itself.
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
    int rank, size, total, r;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *slots = calloc((size_t)size, sizeof *slots);
    int *val = malloc(2 * sizeof *val), *got = malloc(2 * sizeof *got);
    MPI_Win_create(slots, size * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (r = 0; r < 6; r++) {
        int writer = (r / 2) % (size - 1) + 1;
        if (rank != 0 && r % 2 == 0) {
            val[0] = 100 * rank + r;
            val[1] = 1000 + r;
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Put(&val[0], 1, MPI_INT, 0, rank, 1, MPI_INT, win);
            if (rank == writer)
                MPI_Put(&val[1], 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            MPI_Win_unlock(0, win);
        } else if (rank != 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Get(&got[0], 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            MPI_Get(&got[1], 1, MPI_INT, 0, rank, 1, MPI_INT, win);
            MPI_Win_unlock(0, win);
            CHECK(got[0] == 1000 + r - 1, "rank %d round %d: slot 0 holds %d\n", rank, r, got[0]);
            CHECK(got[1] == 100 * rank + r - 1, "rank %d round %d: own slot holds %d\n", rank, r, got[1]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        CHECK(slots[0] == 1004, "rank 0: slot 0 holds %d\n", slots[0]);
        for (r = 1; r < size; r++)
            CHECK(slots[r] == 100 * r + 4, "rank 0: slot %d holds %d\n", r, slots[r]);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    free(slots);
    free(val);
    free(got);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_lock_barrier: OK\n");
    MPI_Finalize();
    return total != 0;
}
