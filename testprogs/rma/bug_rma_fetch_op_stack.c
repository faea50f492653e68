// ranks: 2
// needs: debug-registers
//
// bug_rma_fetch_op_stack.c: every rank draws a ticket from a shared
// counter on rank 0 with MPI_Fetch_and_op (MPI_SUM of 1) into a variable
// in main, and uses the ticket before MPI_Win_flush.
// Breaks MPI-4.1 §12.3.4 and §12.5.4: the result buffer of
// MPI_Fetch_and_op must not be accessed until the operation completes at
// the origin (MPI_Win_flush, MPI_Win_flush_local or MPI_Win_unlock for
// that target); until then it may hold the old value or the fetched one.
// Expected: rma-origin-race at the read of the ticket on both ranks, with
// the MPI_Fetch_and_op as the related place.
//
// The ticket lies right above main's stack pointer, on the page every
// call from main writes its frame to: mpidbg watches its eight bytes with
// a debug register (docs/races.md, "Stack buffers"). Natively the read
// sees the old value (-1) or the ticket.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    long counter = 0, one = 1, ticket = -1, slot;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&counter, sizeof counter, sizeof counter, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    MPI_Fetch_and_op(&one, &ticket, MPI_LONG, 0, 0, MPI_SUM, win); // related "rma-origin-race"
    slot = ticket % 2; // want "rma-origin-race" "the program loaded from the result buffer at offset 0, element \(LONG\) before the MPI_Fetch_and_op completed"
    MPI_Win_flush(0, win);
    MPI_Win_unlock_all(win);
    if (slot > 1)
        printf("rank %d: slot %ld\n", rank, slot);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
