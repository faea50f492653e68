// ranks: 2
//
// bug_rma_passive_after_init.c: a shared table of 2048 counters lives in
// rank 0's window. Rank 0 clears it in a loop and both ranks meet at a
// barrier; then, in one MPI_Win_lock_all epoch, rank 1 reads a block of
// the table with MPI_Get while rank 0 bumps the same block with plain
// stores, with nothing between the two.
// Breaks MPI-4.1 §12.7: a location of the target's window must not be
// updated by a local store while a get from another process may read it
// (the outcome of the get is undefined); only a synchronisation that
// orders the two (an unlock or flush at rank 1 followed by a message or
// barrier to rank 0) makes it correct.
// Expected: rma-target-race at rank 0's store, against rank 1's MPI_Get.
//
// The clearing loop alone makes more stores than the target's watch logs
// in one period; the period after the barrier must be watched all the
// same.
#include <mpi.h>

enum { N = 2048, BLOCK = 8, AT = 512 };

int main(int argc, char **argv)
{
    int rank, *table, got[BLOCK];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &table, &win);
    for (int i = 0; i < N; i++)
        table[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank == 1) {
        MPI_Get(got, BLOCK, MPI_INT, 0, AT, BLOCK, MPI_INT, win); // related "rma-target-race"
        MPI_Win_flush(0, win);
    } else {
        for (int i = 0; i < BLOCK; i++)
            table[AT + i]++; // want "rma-target-race"
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
