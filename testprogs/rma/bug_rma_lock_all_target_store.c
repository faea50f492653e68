// ranks: 2
//
// bug_rma_lock_all_target_store.c: every rank holds MPI_Win_lock_all for
// the whole run. Rank 1 reads word 0 of rank 0's window with MPI_Get and
// adds to word 1 with MPI_Accumulate, then MPI_Win_flush; meanwhile rank 0
// stores into both words with plain stores. Its own shared lock does not
// order them (MPI-4.1 §12.5.3: a shared lock admits other shared locks),
// and the barrier comes after. MPI-4.1 §12.7: a location read by a get
// must not be stored to until the get completed, and a store must not
// race an accumulate's update (accumulates are atomic only against each
// other, §12.7.1). mpidbg must report rma-target-race at both stores, with
// rank 1's operations as the related places.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, *mem, got = 0, one = 1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < 64; i++)
        mem[i] = i;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank == 1) {
        MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win); // related "rma-target-race"
        MPI_Accumulate(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win); // related "rma-target-race"
        MPI_Win_flush(0, win);
    } else if (rank == 0) {
        ((volatile int *)mem)[0] = 100; // want "rma-target-race"
        ((volatile int *)mem)[1] = 200; // want "rma-target-race"
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
