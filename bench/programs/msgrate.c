/* Small-message rate: rank 0 posts WINDOW 8-byte MPI_Isends to rank 1,
 * which posts WINDOW MPI_Irecvs; both MPI_Waitall; rank 1 acknowledges
 * with a zero-byte message. Median time per message in nanoseconds. Each
 * message costs one Isend, one Irecv and its share of two Waitalls, so
 * the difference to native is the per-call cost of the shim on the
 * nonblocking path. */
#include "common.h"

enum { WINDOW = 64, BATCHES = 21, ITERS = 200 };

int main(int argc, char **argv)
{
    int rank;
    double buf[WINDOW], samples[BATCHES];
    MPI_Request req[WINDOW];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < WINDOW; i++)
        buf[i] = i;
    for (int b = -1; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < ITERS; it++) {
            if (rank == 0) {
                for (int i = 0; i < WINDOW; i++)
                    MPI_Isend(&buf[i], 1, MPI_DOUBLE, 1, i, MPI_COMM_WORLD, &req[i]);
                MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                MPI_Recv(NULL, 0, MPI_BYTE, 1, WINDOW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                for (int i = 0; i < WINDOW; i++)
                    MPI_Irecv(&buf[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_WORLD, &req[i]);
                MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                MPI_Send(NULL, 0, MPI_BYTE, 0, WINDOW, MPI_COMM_WORLD);
            }
        }
        if (b >= 0)
            samples[b] = (MPI_Wtime() - t0) / ITERS / WINDOW * 1e9;
    }
    result("msgrate_8B_per_message", median(samples, BATCHES), "ns");
    MPI_Finalize();
    return 0;
}
