// ranks: 2
// needs: debug-registers
//
// bug_rma_put_stack_value.c: rank 0 locks rank 1's window, puts an int
// from a variable in main into it, and assigns the variable its next
// value before MPI_Win_unlock, as if MPI_Put had copied it at the call.
// Breaks MPI-4.1 §12.3.1 and §12.5.3: the origin buffer of MPI_Put must
// not be updated until the operation completes at the origin
// (MPI_Win_unlock, MPI_Win_flush or MPI_Win_flush_local for that target);
// the target may receive the old value, the new one or a mix.
// Expected: rma-origin-race at the store (rank 0), with the MPI_Put as the
// related place.
//
// The variable lies right above main's stack pointer, on the page every
// call from main writes its frame to: mpidbg watches its four bytes with
// a debug register (docs/races.md, "Stack buffers"). Natively rank 1
// receives 7 or 3 (MPICH and Open MPI here: 7, copied at the call).
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mem[4] = {0, 0, 0, 0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(mem, sizeof mem, sizeof mem[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        int value = 7;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&value, 1, MPI_INT, 1, 2, 1, MPI_INT, win); // related "rma-origin-race"
        value = 3; // want "rma-origin-race" "the program stored to the origin buffer at offset 0, element \(INT\) before the MPI_Put completed"
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        if (mem[2] != 7 && mem[2] != 3)
            printf("rank 1: got %d\n", mem[2]);
        MPI_Win_unlock(1, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
