// ranks: 2
// needs: debug-registers
//
// bug_rma_accumulate_stack.c: each rank adds its two partial sums into
// rank 0's window with MPI_Accumulate from an array on its helper's
// stack, and resets the array for the next round before MPI_Win_unlock.
// Breaks MPI-4.1 §12.3.4 and §12.5.3: the origin buffer of MPI_Accumulate
// must not be updated until the operation completes at the origin
// (MPI_Win_unlock, MPI_Win_flush or MPI_Win_flush_local for that target);
// the target may add the old values, the new ones or a mix.
// Expected: rma-origin-race at the reset (each rank), with the
// MPI_Accumulate as the related place.
//
// The array lies in the helper's frame, on the page its own calls write
// their frames to: mpidbg watches its 16 bytes with two debug registers
// (docs/races.md, "Stack buffers"). Natively rank 0 sums whatever MPI
// took.
#include <mpi.h>
#include <stdio.h>

static void contribute(MPI_Win win, int rank)
{
    double part[2] = {rank + 1.0, 10.0 * (rank + 1)};
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Accumulate(part, 2, MPI_DOUBLE, 0, 0, 2, MPI_DOUBLE, MPI_SUM, win); // related "rma-origin-race"
    part[0] = 0; // want "rma-origin-race" "the program stored to the origin buffer at offset 0, element \[0\]\(DOUBLE\) before the MPI_Accumulate completed"
    part[1] = 0;
    MPI_Win_unlock(0, win);
}

int main(int argc, char **argv)
{
    int rank;
    double sums[2] = {0, 0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(sums, sizeof sums, sizeof sums[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    contribute(win, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        if (sums[0] > 3 || sums[1] > 30)
            printf("rank 0: sums %g %g\n", sums[0], sums[1]);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
