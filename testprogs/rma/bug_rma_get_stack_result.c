// ranks: 2
// needs: debug-registers
//
// bug_rma_get_stack_result.c: a helper reads a flag of another rank's
// window with MPI_Get into a local variable and tests it before
// MPI_Win_unlock, as if MPI_Get were a blocking read.
// Breaks MPI-4.1 §12.3.2 and §12.5.3: the result buffer of MPI_Get must
// not be accessed until the operation completes at the origin
// (MPI_Win_unlock, MPI_Win_flush or MPI_Win_flush_local for that target);
// until then it may hold the old value, the new one or a mix.
// Expected: rma-origin-race at the test (rank 0), with the MPI_Get as the
// related place.
//
// The variable lies in the helper's frame, on the page the helper's own
// calls write their frames to: mpidbg watches it with a debug register
// (docs/races.md, "Stack buffers"). Natively the test reads whatever the
// variable held (the MPI_Get has written it already here, or not).
#include <mpi.h>
#include <stdio.h>

static int is_odd(MPI_Win win, int peer, int disp)
{
    int out = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
    MPI_Get(&out, 1, MPI_INT, peer, disp, 1, MPI_INT, win); // related "rma-origin-race"
    int odd = out % 2; // want "rma-origin-race" "the program loaded from the result buffer at offset 0, element \(INT\) before the MPI_Get completed"
    MPI_Win_unlock(peer, win);
    return odd;
}

int main(int argc, char **argv)
{
    int rank, odd = 0, mem[4] = {1, 2, 3, 4};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(mem, sizeof mem, sizeof mem[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        odd = is_odd(win, 1, 2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return odd < 0; /* never: keeps the result */
}
