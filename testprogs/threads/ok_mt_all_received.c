// ranks: 2
// cflags: -fopenmp
// runs: 10
//
// ok_mt_all_received.c: the correct twin of bug_mt_lost_message.c. Two
// ranks with an OpenMP team of 4 threads each (MPI_THREAD_MULTIPLE); each
// thread owns one block of a 1-D field. For a few steps every thread
// swaps its block's edge values with the same thread of the other rank
// (MPI_Sendrecv, tag = thread number) and relaxes its block, clipping
// values above a limit. Then rank 1's threads each report their block's
// diagnostics to rank 0 (tag 100 + thread), and, when the block clipped,
// a warning record (tag 200 + thread); the diagnostics say whether one
// follows, and rank 0's thread receives it then.
// Follows MPI-4.1 §11.2.2 (every message sent is received before
// MPI_Finalize) and §11.6.1 (concurrent calls under MPI_THREAD_MULTIPLE).
// Rank 0 checks every record.
// Correct: must produce no findings.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

enum { THREADS = 4, N = 8, STEPS = 4, LIMIT = 500 };

static int errors[THREADS];

int main(int argc, char **argv)
{
    int provided, rank, size, sum = 0, total = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_all_received: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    omp_set_dynamic(0);
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num(), other = 1 - rank, clipped = 0;
        int u[N + 2]; // u[0], u[N+1]: the other rank's edge values
        if (omp_get_num_threads() != THREADS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int i = 1; i <= N; i++)
            u[i] = 40 * t * t + 10 * rank + i; // block 3 starts near the limit
        for (int step = 0; step < STEPS; step++) {
            int edge[2] = {u[1], u[N]}, ghost[2];
            MPI_Sendrecv(edge, 2, MPI_INT, other, t, ghost, 2, MPI_INT, other, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            u[0] = ghost[1];
            u[N + 1] = ghost[0];
            for (int i = 1; i <= N; i++) {
                u[i] += (u[i - 1] + u[i + 1]) / 8;
                if (u[i] > LIMIT) {
                    u[i] = LIMIT;
                    clipped++;
                }
            }
        }
        if (rank == 1) {
            int diag[3] = {t, u[1] + u[N], clipped};
            MPI_Send(diag, 3, MPI_INT, 0, 100 + t, MPI_COMM_WORLD);
            if (clipped > 0) {
                int warn[2] = {t, clipped};
                MPI_Send(warn, 2, MPI_INT, 0, 200 + t, MPI_COMM_WORLD);
            }
        } else {
            int diag[3], warn[2];
            MPI_Recv(diag, 3, MPI_INT, 1, 100 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errors[t] += diag[0] != t || diag[2] < 0;
            if (diag[2] > 0) {
                MPI_Recv(warn, 2, MPI_INT, 1, 200 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                errors[t] += warn[0] != t || warn[1] != diag[2];
            }
            // the same blocks clip on both ranks: block 3 only
            errors[t] += (diag[2] > 0) != (t == 3) || (clipped > 0) != (t == 3);
        }
    }

    for (int t = 0; t < THREADS; t++) {
        if (errors[t])
            fprintf(stderr, "rank %d thread %d: %d wrong records\n", rank, t, errors[t]);
        sum += errors[t];
    }
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mt_all_received: OK\n");
    MPI_Finalize();
    return total != 0;
}
