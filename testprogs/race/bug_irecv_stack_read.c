// ranks: 2
// needs: debug-registers
//
// bug_irecv_stack_read.c: rank 0 receives four doubles into an array on
// main's stack with MPI_Irecv and reads one of them before MPI_Wait, as
// if the receive were blocking.
// Breaks MPI-4.1 §3.7.2: the receiver must not access any part of the
// receive buffer after a nonblocking receive operation is called, until
// the receive completes.
// Expected: recv-buffer-access at the read (rank 0), with the MPI_Irecv as
// the related location.
//
// The buffer lies right above main's stack pointer, on the page every
// call from main writes its frame to: mpidbg watches its bytes there with
// the debug registers (docs/races.md, "Stack buffers"). Rank 1 sends only
// after a barrier that rank 0 enters after the read, so the read is
// certainly before the data arrived. Natively the read sees the initial
// value.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    double buf[4] = {0, 0, 0, 0}, early = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Irecv(buf, 4, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // related "recv-buffer-access"
        early = buf[1]; // want "recv-buffer-access" "load from the receive buffer \(4 x MPI_DOUBLE\) at offset 8, element \[1\]\(DOUBLE\), before the receive completed"
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (buf[1] != 1.5)
            printf("rank 0: got %g (early read %g)\n", buf[1], early);
    } else {
        double out[4] = {0.5, 1.5, 2.5, 3.5};
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(out, 4, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
