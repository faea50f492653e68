/* 8-byte ping-pong between ranks 0 and 1: median one-way latency over
 * batches, in nanoseconds. Blocking MPI_Send/MPI_Recv with MPI_DOUBLE:
 * the path every MPI program takes most often. */
#include "common.h"

enum { WARMUP = 2000, BATCHES = 21, ITERS = 2000 };

int main(int argc, char **argv)
{
    int rank;
    double msg = 0, samples[BATCHES];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int b = -1; b < BATCHES; b++) {
        int n = b < 0 ? WARMUP : ITERS;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(&msg, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(&msg, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(&msg, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&msg, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
            }
        }
        if (b >= 0)
            samples[b] = (MPI_Wtime() - t0) / n / 2 * 1e9;
    }
    result("pingpong_8B_one_way", median(samples, BATCHES), "ns");
    MPI_Finalize();
    return 0;
}
