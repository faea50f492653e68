// ranks: 2
// needs: debug-registers
//
// bug_rma_cas_stack.c: a spin lock on rank 0's window. A helper tries to
// take it with MPI_Compare_and_swap (0 -> its rank + 1) and tests the
// old value, fetched into a variable on its stack, before MPI_Win_flush:
// the test may see the value from before the swap and decide wrongly.
// Breaks MPI-4.1 §12.3.4 and §12.5.4: the result buffer of
// MPI_Compare_and_swap must not be accessed until the operation
// completes at the origin (MPI_Win_flush, MPI_Win_flush_local or
// MPI_Win_unlock for that target).
// Expected: rma-origin-race at the test (each rank), with the
// MPI_Compare_and_swap as the related place.
//
// The variables lie in the helper's frame, on the page its calls write
// their frames to: mpidbg watches the old value (and the origin and
// compare values, which the helper leaves alone) with debug registers
// (docs/races.md, "Stack buffers"). The ranks take the lock one after the
// other, so each try succeeds natively whatever the early test saw.
#include <mpi.h>
#include <stdio.h>

static int try_lock(MPI_Win win, int rank)
{
    int mine = rank + 1, unlocked = 0, old = -1, got;
    MPI_Compare_and_swap(&mine, &unlocked, &old, MPI_INT, 0, 0, win); // related "rma-origin-race"
    got = old == 0; // want "rma-origin-race" "the program loaded from the result buffer at offset 0, element \(INT\) before the MPI_Compare_and_swap completed"
    MPI_Win_flush(0, win);
    return got;
}

int main(int argc, char **argv)
{
    int rank, lock = 0, zero = 0, dummy;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&lock, sizeof lock, sizeof lock, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    for (int turn = 0; turn < 2; turn++) {
        if (turn == rank) {
            try_lock(win, rank);
            MPI_Fetch_and_op(&zero, &dummy, MPI_INT, 0, 0, MPI_REPLACE, win); /* release */
            MPI_Win_flush(0, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
