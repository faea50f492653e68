// ranks: 2
// needs: debug-registers
//
// bug_persistent_stack_send.c: a helper makes a persistent send of one
// double on its stack (MPI_Send_init), starts it three times in a loop
// and, in the last round, scales the value before MPI_Wait.
// Breaks MPI-4.1 §3.9 (and §3.7.2): a started persistent send is a
// nonblocking send; its buffer must not be modified until it completes.
// Expected: send-buffer-write at the store (rank 0), the MPI_Start as the
// related location (where the operation started).
//
// The double lies in the helper's frame, next to the loop counter and
// the request, on the page the helper's calls write their frames to:
// mpidbg watches it with the debug registers (docs/races.md, "Stack
// buffers"); the counter's stores are not reported. Rank 1 posts its
// receives in order, the last one after a barrier that rank 0 enters
// after the store. Natively rank 1 gets the scaled value.
#include <mpi.h>
#include <stdio.h>

static void rounds(int rank)
{
    double x = 1.0;
    MPI_Request r;

    if (rank == 0) {
        MPI_Send_init(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r);
        for (int i = 0; i < 3; i++) {
            MPI_Start(&r); // related "send-buffer-write"
            if (i == 2) {
                x *= 2; // want "send-buffer-write" "store to the send buffer \(1 x MPI_DOUBLE\) at offset 0, element \(DOUBLE\), before the send completed"
                MPI_Barrier(MPI_COMM_WORLD);
            }
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            x += 1;
        }
        MPI_Request_free(&r);
    } else {
        for (int i = 0; i < 3; i++) {
            if (i == 2)
                MPI_Barrier(MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (x != 3.0 && x != 6.0)
            printf("rank 1: got %g\n", x);
    }
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rounds(rank);
    MPI_Finalize();
    return 0;
}
