// ranks: 3
//
// ok_rma_publish_flag.c: one-shot publication through a window, in a
// passive-target epoch (MPI_Win_lock_all on every rank). The leader,
// rank 0, computes a parameter block in its own window memory with plain
// stores, makes it visible with MPI_Win_sync, then raises a ready flag in
// the window's first word with MPI_Fetch_and_op(MPI_REPLACE) and a flush.
// The other ranks poll the flag with MPI_Fetch_and_op(MPI_NO_OP) and a
// flush and, once it is set, fetch the block with MPI_Get. A second round
// publishes a new block with a new flag value after a barrier.
// Follows MPI-4.1 §12.7: the stores reach the public copy at the leader's
// MPI_Win_sync at the latest, before the flag is set; the flag is only
// ever accessed by accumulate-family operations of one basic type with
// MPI_REPLACE and MPI_NO_OP (§12.7.1: atomic); every MPI_Get is issued
// after its origin saw the flag set, so no Get overlaps the stores.
// Correct: must produce no findings; every rank checks the block.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 256, ROUNDS = 2 };

int main(int argc, char **argv)
{
    int rank, errors = 0;
    long *w;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* w[0]: the ready flag (the round last published); w[1..N]: the block */
    MPI_Win_allocate((N + 1) * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
    w[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (long round = 1; round <= ROUNDS; round++) {
        if (rank == 0) {
            for (int i = 1; i <= N; i++)
                w[i] = round * 1000 + 3 * i;
            MPI_Win_sync(win);
            long old;
            MPI_Fetch_and_op(&round, &old, MPI_LONG, 0, 0, MPI_REPLACE, win);
            MPI_Win_flush(0, win);
        } else {
            long flag = 0, none = 0;
            while (flag != round) {
                MPI_Fetch_and_op(&none, &flag, MPI_LONG, 0, 0, MPI_NO_OP, win);
                MPI_Win_flush(0, win);
            }
            long *block = malloc(N * sizeof *block);
            MPI_Get(block, N, MPI_LONG, 0, 1, N, MPI_LONG, win);
            MPI_Win_flush(0, win);
            for (int i = 0; i < N; i++)
                if (block[i] != round * 1000 + 3 * (i + 1)) {
                    errors++;
                    break;
                }
            free(block);
        }
        /* every Get of this round completed before the leader writes the next block */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_rma_publish_flag: OK\n");
    MPI_Finalize();
    return all != 0;
}
