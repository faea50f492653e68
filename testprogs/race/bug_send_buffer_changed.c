// ranks: 2
//
// bug_send_buffer_changed.c: rank 0 sends a small array on its stack with
// MPI_Isend and overwrites it before MPI_Wait.
// Breaks MPI-4.1 §3.7.2: the sender must not modify any part of the send
// buffer after a nonblocking send operation is called, until the send
// completes.
// Expected: send-buffer-changed at the MPI_Wait (rank 0), with the
// MPI_Isend as the related location. mpidbg does not watch the few KiB of
// stack just above the stack pointer with page protection (every call
// writes there); it copies such small send buffers when the send starts
// and compares them when it completes, so the report is at the completion
// call, not at the store.
//
// Rank 1 receives only after a barrier that rank 0 enters after the
// store. Natively the receiver gets the new values; the program does not
// check them.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, small[4] = {1, 2, 3, 4};
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Isend(small, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); // related "send-buffer-changed"
        small[2] = 30; // bug: the send is still pending
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE); // want "send-buffer-changed" "changed while the send was pending \(first changed byte at offset 8"
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(small, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Finalize();
    return 0;
}
