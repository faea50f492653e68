/* Per-call cost of the shim, without the network: one rank calls
 * MPI_Send and MPI_Recv to MPI_PROC_NULL, MPI_Isend/MPI_Irecv to
 * MPI_PROC_NULL with MPI_Waitall, and a self-message Isend/Irecv window,
 * N times each; prints ns per call. Run natively and with the shim
 * preloaded, and compare. */
#include <mpi.h>
#include <stdio.h>

enum { N = 2000000, W = 64 };

static double now(void) { return MPI_Wtime(); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double x = 0, buf[W];
    MPI_Request r[2 * W];
    double t0 = now();
    for (int i = 0; i < N; i++)
        MPI_Send(&x, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    double t1 = now();
    for (int i = 0; i < N; i++)
        MPI_Recv(&x, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t2 = now();
    for (int i = 0; i < N / W; i++) {
        for (int k = 0; k < W; k++)
            MPI_Isend(&buf[k], 1, MPI_DOUBLE, MPI_PROC_NULL, k, MPI_COMM_WORLD, &r[k]);
        MPI_Waitall(W, r, MPI_STATUSES_IGNORE);
    }
    double t3 = now();
    int me;
    MPI_Comm_rank(MPI_COMM_SELF, &me);
    for (int i = 0; i < N / W / 4; i++) {
        for (int k = 0; k < W; k++)
            MPI_Irecv(&buf[k], 1, MPI_DOUBLE, me, k, MPI_COMM_SELF, &r[k]);
        for (int k = 0; k < W; k++)
            MPI_Isend(&x, 1, MPI_DOUBLE, me, k, MPI_COMM_SELF, &r[W + k]);
        MPI_Waitall(2 * W, r, MPI_STATUSES_IGNORE);
    }
    double t4 = now();
    printf("send-procnull %.1f ns/call\n", (t1 - t0) / N * 1e9);
    printf("recv-procnull %.1f ns/call\n", (t2 - t1) / N * 1e9);
    printf("isend-procnull+waitall %.1f ns/message\n", (t3 - t2) / N * 1e9);
    printf("self-window isend+irecv+waitall %.1f ns/message\n", (t4 - t3) / (N / 4) * 1e9);
    MPI_Finalize();
    return 0;
}
