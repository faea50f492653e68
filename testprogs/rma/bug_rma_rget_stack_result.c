// ranks: 2
// needs: debug-registers
//
// bug_rma_rget_stack_result.c: a helper fetches a pair of doubles from
// another rank's window with MPI_Rget into an array on its stack and
// adds them up before MPI_Wait completes the request.
// Breaks MPI-4.1 §12.3.5: the result buffer of a request-based MPI_Rget
// must not be accessed until the request is complete (MPI_Wait, or
// MPI_Test with flag true); until then it may hold old data, new data or
// a mix.
// Expected: rma-origin-race at the read (rank 0), with the MPI_Rget as
// the related place.
//
// The pair lies in the helper's frame, on the page its calls write their
// frames to: mpidbg watches its 16 bytes with two debug registers
// (docs/races.md, "Stack buffers"). Natively the sum reads whatever the
// pair held.
#include <mpi.h>
#include <stdio.h>

static double fetch_sum(MPI_Win win, int peer)
{
    double pair[2] = {0, 0}, sum;
    MPI_Request r;

    MPI_Win_lock_all(0, win);
    MPI_Rget(pair, 2, MPI_DOUBLE, peer, 0, 2, MPI_DOUBLE, win, &r); // related "rma-origin-race"
    sum = pair[0] + pair[1]; // want "rma-origin-race" "the program loaded from the result buffer at offset 0, element \[0\]\(DOUBLE\) before the MPI_Rget completed"
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
    return sum;
}

int main(int argc, char **argv)
{
    int rank;
    double mem[2], sum = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mem[0] = rank + 0.25;
    mem[1] = rank + 0.5;
    MPI_Win_create(mem, sizeof mem, sizeof mem[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        sum = fetch_sum(win, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return sum < 0; /* never: keeps the result */
}
