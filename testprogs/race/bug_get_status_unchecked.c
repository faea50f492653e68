// ranks: 2
//
// bug_get_status_unchecked.c: rank 1 asks MPI_Request_get_status whether
// its receive of a reading has completed, but uses the reading whatever
// the answer: the flag only picks a log message. Rank 0 sends the
// reading only after rank 1 has asked for it, later, so the load reads
// the buffer before the data arrived.
// Breaks MPI-4.1 §3.7.2 and §3.7.3: the receive buffer is MPI's until the
// operation is complete; MPI_Request_get_status with flag = false
// (§3.7.6) completes nothing.
// Expected: recv-buffer-access at the load (the bug: it uses the
// reading whatever the flag said).
//
// Natively the program prints nothing wrong: it uses the value the buffer
// held before (0).
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, flag = 0;
    double reading = 0, value = 21.5;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Request r;
        static double buf[512]; /* a page of its own for the tracker */
        MPI_Irecv(buf, 512, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &r);
        MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            fprintf(stderr, "reading not in yet\n");
        reading = buf[0]; // want "recv-buffer-access" "load from the receive buffer \(512 x MPI_DOUBLE\) at offset 0, element \[0\]\(DOUBLE\), before the receive completed"
        MPI_Send(NULL, 0, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        (void)reading;
    }
    MPI_Finalize();
    return 0;
}
