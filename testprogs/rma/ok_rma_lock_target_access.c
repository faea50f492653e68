// ranks: 4
//
// ok_rma_lock_target_access.c: rank 0 loads and stores its own window
// memory while the other ranks access it in passive-target epochs, each
// time ordered the way MPI-4.1 §12.5.3 and §12.7 allow:
//   1. it fills the window before a barrier, and reads what the others put
//      under MPI_Win_lock/unlock only after the next barrier (the unlock
//      completed each put at the target, the barrier orders it before the
//      loads);
//   2. it stores to a word under an exclusive lock on its own window while
//      rank 1 puts to the same word under a shared lock: the two lock
//      epochs exclude each other, so either value may remain, but no
//      access races;
//   3. rank 1 puts data, flushes, and sets a flag with MPI_Accumulate
//      (MPI_REPLACE); rank 0, in MPI_Win_lock_all, polls the flag with
//      MPI_Win_sync and plain loads (and MPI_Iprobe, so that MPI makes
//      progress on rank 1's requests), then reads the data: the handover
//      through an atomic flag (§12.7, the polling example of the unified
//      model);
//   4. everybody in MPI_Win_lock_all: the others get a word and flush, a
//      barrier, then rank 0 overwrites it.
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

enum { SLOTS = 0, SHARED = 40, DATA = 50, FLAG = 51, READ = 60, N = 64 };

int main(int argc, char **argv)
{
    int rank, size, total, *mem;
    int val, nine = 9, one = 1, got = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < N; i++)
        mem[i] = -1;
    mem[FLAG] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1 */
    if (rank != 0 && rank < SHARED) {
        val = 100 + rank;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&val, 1, MPI_INT, 0, SLOTS + rank, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 1; r < size && r < SHARED; r++)
            CHECK(mem[SLOTS + r] == 100 + r, "rank 0: slot %d holds %d\n", r, mem[SLOTS + r]);

    /* 2 */
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        mem[SHARED] = 7;
        MPI_Win_unlock(0, win);
    } else if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&nine, 1, MPI_INT, 0, SHARED, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(mem[SHARED] == 7 || mem[SHARED] == 9, "rank 0: shared word holds %d\n", mem[SHARED]);

    /* 3 */
    if (rank == 1) {
        val = 4242;
        MPI_Win_lock_all(0, win);
        MPI_Put(&val, 1, MPI_INT, 0, DATA, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, FLAG, 1, MPI_INT, MPI_REPLACE, win);
        MPI_Win_flush(0, win);
        MPI_Win_unlock_all(win);
    } else if (rank == 0) {
        MPI_Win_lock_all(0, win);
        int flag;
        do { /* MPI_Iprobe: MPI makes progress on rank 1's lock request (MPI-4.1 §12.7.3) */
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            MPI_Win_sync(win);
        } while (((volatile int *)mem)[FLAG] != 1);
        CHECK(mem[DATA] == 4242, "rank 0: data after the flag is %d\n", mem[DATA]);
        MPI_Win_unlock_all(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 4 */
    if (rank == 0)
        mem[READ] = 60;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank != 0) {
        MPI_Get(&got, 1, MPI_INT, 0, READ, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        CHECK(got == 60, "rank %d: got %d\n", rank, got);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        mem[READ] = 61;
    MPI_Win_unlock_all(win);

    MPI_Win_free(&win);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_lock_target_access: OK\n");
    MPI_Finalize();
    return total != 0;
}
