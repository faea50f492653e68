/* Small collectives on MPI_COMM_WORLD: MPI_Barrier, MPI_Allreduce of one
 * double, MPI_Bcast of 1 KB from rank 0, and MPI_Alltoallv of two doubles
 * to every rank. For each, median time per call over batches, in
 * nanoseconds (one RESULT line each). Each rank makes one wrapped call per
 * operation, so the difference to native is the cost per collective of
 * the shim; under mpidbg with the cross-rank checks on, every collective
 * first runs the agreement (and the v-form its per-block digests). */
#include "common.h"
#include <string.h>

enum { BATCHES = 21, ITERS = 500, BCAST_BYTES = 1024, PER_PEER = 2 };

enum { BARRIER, ALLREDUCE, BCAST, ALLTOALLV, NOPS };

static void op(int which, double *x, double *y, char *bytes, double *sbuf, double *rbuf, const int *counts,
               const int *displs)
{
    switch (which) {
    case BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case ALLREDUCE:
        MPI_Allreduce(x, y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case BCAST:
        MPI_Bcast(bytes, BCAST_BYTES, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case ALLTOALLV:
        MPI_Alltoallv(sbuf, counts, displs, MPI_DOUBLE, rbuf, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
        break;
    }
}

int main(int argc, char **argv)
{
    static const char *names[NOPS] = {"collbench_barrier", "collbench_allreduce_8B", "collbench_bcast_1KB",
                                      "collbench_alltoallv_16B_per_peer"};
    int size;
    double x = 1, y = 0, samples[BATCHES];
    char bytes[BCAST_BYTES];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(bytes, 7, sizeof bytes);
    double *sbuf = malloc((size_t)size * PER_PEER * sizeof *sbuf), *rbuf = malloc((size_t)size * PER_PEER * sizeof *rbuf);
    int *counts = malloc((size_t)size * sizeof *counts), *displs = malloc((size_t)size * sizeof *displs);
    for (int i = 0; i < size; i++) {
        counts[i] = PER_PEER;
        displs[i] = i * PER_PEER;
        for (int k = 0; k < PER_PEER; k++)
            sbuf[i * PER_PEER + k] = i + k;
    }
    for (int w = 0; w < NOPS; w++) {
        for (int b = -1; b < BATCHES; b++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int it = 0; it < ITERS; it++)
                op(w, &x, &y, bytes, sbuf, rbuf, counts, displs);
            if (b >= 0)
                samples[b] = (MPI_Wtime() - t0) / ITERS * 1e9;
        }
        result(names[w], median(samples, BATCHES), "ns");
    }
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
