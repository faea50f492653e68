// ranks: 2
// cflags: -pthread
// runs: 10
//
// ok_mt_atomic_handoff_annotated.c: a pipeline of 4 threads on rank 0
// (MPI_THREAD_MULTIPLE) that update one accumulator cell in rank 1's
// window in turn, under MPI_Win_lock_all: stage t waits for stage t-1's
// C11 atomic "done" flag, reads the cell, adds its share, puts it back
// and flushes, then raises its own flag. The hand-over through atomics
// is correct (each put is complete at the target, by the flush, before
// the next stage starts), but no pthread or OpenMP call shows it, so
// the program tells mpidbg with MPIDBG_HAPPENS_BEFORE/AFTER from
// include/mpidbg.h (no-ops when mpidbg is not there).
// Expected: no findings. Without the two annotations mpidbg would report
// rma-conflict between the stages' puts (docs/threads.md).
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "../../include/mpidbg.h"

enum { STAGES = 4 };

static MPI_Win win;
static atomic_int done[STAGES];

static void *stage(void *arg)
{
    int t = (int)(long)arg;
    if (t > 0) {
        while (!atomic_load_explicit(&done[t - 1], memory_order_acquire))
            ;
        MPIDBG_HAPPENS_AFTER(&done[t - 1]);
    }
    int cell = 0;
    MPI_Get(&cell, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    cell += 10 * (t + 1);
    MPI_Put(&cell, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    MPIDBG_HAPPENS_BEFORE(&done[t]);
    atomic_store_explicit(&done[t], 1, memory_order_release);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_atomic_handoff_annotated: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int cellmem[4] = {0};
    MPI_Win_create(cellmem, sizeof cellmem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        pthread_t th[STAGES];
        for (long t = 0; t < STAGES; t++)
            pthread_create(&th[t], NULL, stage, (void *)t);
        for (int t = 0; t < STAGES; t++)
            pthread_join(th[t], NULL);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        if (cellmem[0] == 100)
            printf("ok_mt_atomic_handoff_annotated: OK\n");
        else
            printf("ok_mt_atomic_handoff_annotated: cell %d, want 100\n", cellmem[0]);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
