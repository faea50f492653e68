// ranks: 2
//
// bug_isend_stack_buffer.c: rank 0 sends a buffer on its stack with
// MPI_Isend and stores into it before MPI_Wait.
// Breaks MPI-4.1 §3.7.2: the sender must not modify any part of the send
// buffer after a nonblocking send operation is called, until the send
// completes.
// Expected: send-buffer-write at the store (rank 0), the MPI_Isend as the
// related location.
//
// The buffer (32 KiB) is sent by rendezvous and rank 1 posts its receive
// only after a barrier that rank 0 enters after the store, so the store is
// certainly before MPI read the buffer. The stored element lies on one of
// the buffer's upper pages, which mpidbg write-protects (its first page,
// where the frames of calls are written too, is left to the debug
// registers, which hold 32 bytes at most). Natively the receiver gets the
// stored value; the program does not check it.
#include <mpi.h>
#include <stdio.h>

enum { N = 8192 };

static void exchange(int rank)
{
    int buf[N];
    MPI_Request r;

    if (rank == 0) {
        for (int i = 0; i < N; i++)
            buf[i] = i;
        MPI_Isend(buf, N, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); // related "send-buffer-write"
        buf[N - 10] = -1; // want "send-buffer-write"
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(buf, N, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    exchange(rank);
    MPI_Finalize();
    return 0;
}
