// ranks: 2
//
// ok_rma_flush_local_reuse.c: an origin buffer reused after
// MPI_Win_flush_local. Rank 0 locks rank 1's window and, four times, writes
// a value into one heap buffer, puts it into slot i of rank 1 and calls
// MPI_Win_flush_local(1): the puts are then complete at the origin and the
// buffer may be written again (MPI-4.1 §12.5.4), although they may not
// have reached the target yet. MPI_Win_unlock completes them there; a
// barrier, and rank 1 checks its window under a lock on itself. Correct:
// must produce no findings.
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

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int *slots = calloc(4, sizeof *slots);
    int *buf = malloc(sizeof *buf);
    MPI_Win_create(slots, 4 * sizeof *slots, sizeof *slots, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        for (i = 0; i < 4; i++) {
            *buf = 40 + i;
            MPI_Put(buf, 1, MPI_INT, 1, i, 1, MPI_INT, win);
            MPI_Win_flush_local(1, win);
        }
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        for (i = 0; i < 4; i++)
            CHECK(slots[i] == 40 + i, "rank 1: slot %d holds %d\n", i, slots[i]);
        MPI_Win_unlock(1, win);
    }
    MPI_Win_free(&win);
    free(slots);
    free(buf);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_flush_local_reuse: OK\n");
    MPI_Finalize();
    return total != 0;
}
