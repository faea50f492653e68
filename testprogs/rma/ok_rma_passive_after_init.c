// ranks: 2
//
// ok_rma_passive_after_init.c: the correct twin of
// bug_rma_passive_after_init.c. Rank 0 clears its table of 2048 counters
// in a loop and both ranks meet at a barrier; rank 1 reads a block with
// MPI_Get in an MPI_Win_lock_all epoch and completes it with
// MPI_Win_unlock_all; only after a second barrier does rank 0 bump the
// block with plain stores, and then rank 1 reads it again in a new epoch
// after a third barrier.
// Correct: MPI-4.1 §12.5.3: the unlock completes the first get at the
// target, and the barrier orders rank 0's stores after it; the stores
// are made in an exclusive lock epoch of rank 0 on its own window
// (§12.7, rule 4, for local updates seen by later accesses), which ends
// before the barrier that comes before the second get. Expected: no
// findings.
#include <mpi.h>
#include <stdio.h>

enum { N = 2048, BLOCK = 8, AT = 512 };

int main(int argc, char **argv)
{
    int rank, *table, got[BLOCK], ok = 1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &table, &win);
    for (int i = 0; i < N; i++)
        table[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank == 1)
        MPI_Get(got, BLOCK, MPI_INT, 0, AT, BLOCK, MPI_INT, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        for (int i = 0; i < BLOCK; i++)
            table[AT + i]++;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank == 1) {
        MPI_Get(got, BLOCK, MPI_INT, 0, AT, BLOCK, MPI_INT, win);
        MPI_Win_flush(0, win);
        for (int i = 0; i < BLOCK; i++)
            ok &= got[i] == 1;
    }
    MPI_Win_unlock_all(win);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0 && ok)
        printf("ok_rma_passive_after_init: OK\n");
    MPI_Win_free(&win);
    MPI_Finalize();
    return !ok;
}
