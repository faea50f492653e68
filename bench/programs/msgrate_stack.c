/* Small-message rate with stack buffers: msgrate.c, but each batch runs in
 * a function of its own whose frame holds the 64 send or receive buffers
 * (8 bytes each) and the requests, as a program that sends locals does:
 * right above the stack pointer, on the page every call from there writes
 * its frame to. Median time per message in nanoseconds; the access
 * tracker watches these buffers with the debug registers
 * (docs/races.md, "Stack buffers"). */
#include "common.h"

enum { WINDOW = 64, BATCHES = 21, ITERS = 200 };

/* one round of WINDOW messages; the buffers live in this frame only */
static double round_trip(int rank, int it)
{
    double buf[WINDOW];
    MPI_Request req[WINDOW];
    if (rank == 0) {
        for (int i = 0; i < WINDOW; i++) {
            buf[i] = it + i;
            MPI_Isend(&buf[i], 1, MPI_DOUBLE, 1, i, MPI_COMM_WORLD, &req[i]);
        }
        MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, WINDOW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        for (int i = 0; i < WINDOW; i++)
            MPI_Irecv(&buf[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, WINDOW, MPI_COMM_WORLD);
    }
    return buf[WINDOW - 1];
}

int main(int argc, char **argv)
{
    int rank;
    double samples[BATCHES], sink = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int b = -1; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < ITERS; it++)
            sink += round_trip(rank, it);
        if (b >= 0)
            samples[b] = (MPI_Wtime() - t0) / ITERS / WINDOW * 1e9;
    }
    result("msgrate_stack_8B_per_message", median(samples, BATCHES), "ns");
    MPI_Finalize();
    return sink < 0;
}
