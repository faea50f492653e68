// ranks: 2
//
// bug_send_buffer_changed.c: rank 0 waits for four values from rank 1,
// received with MPI_Irecv into variables on main's stack, sends a small
// array, also on its stack, with MPI_Issend, and overwrites it before
// MPI_Wait.
// Breaks MPI-4.1 §3.7.2: the sender must not modify any part of the send
// buffer after a nonblocking send operation is called, until the send
// completes.
// Expected: send-buffer-changed at the MPI_Wait (rank 0), with the
// MPI_Issend as the related location. mpidbg watches the bytes of stack
// buffers right above the stack pointer with the debug registers, four
// per thread, which the pending receives hold here; it copies such small
// send buffers when the send starts and compares them when it completes,
// so the report is at the completion call, not at the store. A
// synchronous send cannot complete before its receive starts, so MPI
// may still read the buffer after the store: an error. With MPI_Isend,
// which both MPIs complete at once for 16 bytes, the same change is
// latent (bug_send_buffer_changed_eager.c).
//
// The four ints sent start 4 bytes into an array that the x86-64 ABI
// aligns to 16 bytes (a local array of 16 bytes or more), so they
// never start a page: a stack buffer that starts a page has no
// first-page part and is protected like any page (docs/races.md), which
// would find the store where it is made, once in 256 runs as the stack's
// start varies.
//
// Rank 1 receives only after a barrier that rank 0 enters after the
// store. Natively the receiver gets the new values; the program does not
// check them.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, block[5] = {0, 1, 2, 3, 4};
    int *small = block + 1;
    double north = 0, south = 0, east = 0, west = 0;
    MPI_Request r, nb[4];
    MPI_Status st[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Irecv(&north, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &nb[0]);
        MPI_Irecv(&south, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, &nb[1]);
        MPI_Irecv(&east, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, &nb[2]);
        MPI_Irecv(&west, 1, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, &nb[3]);
        MPI_Issend(small, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); // related "send-buffer-changed"
        small[2] = 30; // bug: the send is still pending
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE); // want "send-buffer-changed" "changed while the send was pending \(first changed byte at offset 8"
        MPI_Waitall(4, nb, st);
        if (north + south + east + west != 10)
            printf("rank 0: got %g %g %g %g\n", north, south, east, west);
    } else {
        double v[4] = {1, 2, 3, 4};
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(small, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 4; i++)
            MPI_Send(&v[i], 1, MPI_DOUBLE, 0, i + 1, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
