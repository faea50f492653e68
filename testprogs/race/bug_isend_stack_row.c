// ranks: 2
//
// bug_isend_stack_row.c: a halo routine packs a boundary row of its grid
// into an array on its stack, sends it with MPI_Issend, and clears the
// row's last element, a periodic ghost the next step fills, before
// MPI_Wait.
// Breaks MPI-4.1 §3.7.2: the sender must not modify any part of the send
// buffer after a nonblocking send operation is called, until the send
// completes.
// Expected: send-buffer-changed at the MPI_Wait (rank 0), the MPI_Issend
// as the related location. The row (384 bytes) lies right above the
// stack pointer, on the page where every call writes its frame, which
// cannot be protected, and is more than the debug registers hold (they
// watch its first 16 bytes, the store is at its end): mpidbg copies such
// a buffer, up to a page, when the send starts and compares it when the
// send completes. A synchronous send cannot complete before its receive
// starts, and rank 1 receives only after a barrier that rank 0 enters
// after the store, so MPI may read the buffer after the store: an error.
//
// The row is kept inside a 512-byte aligned block, 16 bytes in, so that
// it neither starts nor crosses a page whatever the stack's start (ASLR):
// a page it reached past its first would be protected and the store
// found where it is made instead.
#include <mpi.h>
#include <stdio.h>

enum { NX = 48, NY = 6 };

static double grid[NY][NX];

static void send_rows(int rank)
{
    struct {
        double guard[2];
        double row[NX];
    } __attribute__((aligned(512))) b;
    MPI_Request r;

    if (rank == 0) {
        for (int i = 0; i < NX; i++)
            b.row[i] = grid[0][i];
        MPI_Issend(b.row, NX, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // related "send-buffer-changed"
        b.row[NX - 1] = 0; // bug: the ghost cleared before the wait
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE); // want "send-buffer-changed"
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(b.row, NX, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            grid[j][i] = rank * 1000 + j * NX + i;
    send_rows(rank);
    MPI_Finalize();
    return 0;
}
