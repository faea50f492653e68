// ranks: 2
// needs: debug-registers
//
// bug_isend_stack_small.c: a helper sends a two-int header from its own
// stack with MPI_Isend and, before MPI_Wait, stores the next sequence
// number into it, as if MPI had copied the header at the call.
// Breaks MPI-4.1 §3.7.2: the sender must not modify any part of the send
// buffer after a nonblocking send operation is called, until the send
// completes.
// Expected: at the store (rank 0), buffer-access-latent, with the
// MPI_Isend as the related location: an eight-byte send is complete when
// MPI_Isend returns with both MPICH and Open MPI (eager), so MPI had the
// data already and the store is wrong only where MPI reads later (a
// larger message, another network). mpidbg says so instead of
// send-buffer-write.
//
// The header lies in the helper's frame, on the page the helper's own
// calls (MPI_Barrier, MPI_Wait) write their frames to: mpidbg watches it
// with the debug registers (docs/races.md, "Stack buffers"). Rank 1
// receives after a barrier; natively it gets the stored value.
#include <mpi.h>
#include <stdio.h>

static int seq = 7;

static void send_header(int rank, int len)
{
    int hdr[2] = {seq, len};
    MPI_Request r;

    if (rank == 0) {
        MPI_Isend(hdr, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); // related "buffer-access-latent"
        hdr[0] = ++seq; // want "buffer-access-latent" "store to the send buffer \(2 x MPI_INT\) at offset 0, element \[0\]\(INT\), after MPI had taken the data"
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(hdr, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (hdr[1] != len)
            printf("rank 1: header %d %d\n", hdr[0], hdr[1]);
    }
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    send_header(rank, 64);
    MPI_Finalize();
    return 0;
}
