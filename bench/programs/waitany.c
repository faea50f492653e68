/* Completing many requests one at a time: rank 0 posts N receives of
 * one int from rank 1 and completes them with MPI_Waitany, then again
 * with MPI_Testany in a polling loop; rank 1 sends them after a barrier.
 * MPI scans the whole array at every call, so a call costs O(N) natively
 * too; the difference to native is what the wrapper adds per call. Median
 * time per completion in nanoseconds. */
#include "common.h"

enum { N = 2000, BATCHES = 5 };

int main(int argc, char **argv)
{
    int rank;
    static int buf[N];
    static MPI_Request r[N];
    double wait[BATCHES], test[BATCHES];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int b = -1; b < BATCHES; b++) {
        for (int any = 0; any < 2; any++) {
            if (rank == 0) {
                for (int i = 0; i < N; i++)
                    MPI_Irecv(&buf[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &r[i]);
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int k = 0; k < N;) {
                    int idx, flag = 1;
                    if (any)
                        MPI_Testany(N, r, &idx, &flag, MPI_STATUS_IGNORE);
                    else
                        MPI_Waitany(N, r, &idx, MPI_STATUS_IGNORE);
                    k += flag && idx != MPI_UNDEFINED;
                }
                double t = (MPI_Wtime() - t0) / N * 1e9;
                if (b >= 0)
                    *(any ? &test[b] : &wait[b]) = t;
            } else if (rank == 1) {
                MPI_Barrier(MPI_COMM_WORLD);
                for (int i = 0; i < N; i++)
                    MPI_Send(&i, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
            } else {
                MPI_Barrier(MPI_COMM_WORLD);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    result("waitany_2000_per_completion", median(wait, BATCHES), "ns");
    result("testany_2000_per_completion", median(test, BATCHES), "ns");
    MPI_Finalize();
    return 0;
}
