// ranks: 2
// cflags: -fopenmp
// runs: 10
// flags: --deadlock-timeout=300ms
//
// ok_mt_slow_sender.c: the correct twin of bug_mt_deadlock_recv_recv.c and
// bug_mt_deadlock_wait.c. Two ranks with an OpenMP team of 4 threads each
// (MPI_THREAD_MULTIPLE). Threads 2 and 3 run a halo exchange with the
// same thread of the other rank (MPI_Sendrecv, tag = thread number).
// Thread 1 of rank 0 waits in MPI_Recv for rank 1's coarse-grid
// correction (tag 1), which rank 1's thread 1 computes for about a second
// (usleep) before it sends it. Meanwhile rank 1's thread 0 waits in
// MPI_Recv for rank 0's update (tag 0), which rank 0's thread 0 sends only
// once the correction is in (after an OpenMP barrier). For that second
// each rank has a thread blocked in a receive from the other, as in a
// head-to-head deadlock, but rank 1's thread 1 is computing and will send:
// there is no cycle of threads that can never continue. The deadlock
// timeout is shortened below the second of computing, so that only the
// detector's knowledge of threads keeps it from reporting one.
// Follows MPI-4.1 §3.5 (progress: the receives complete once the matching
// sends start) and §11.6.1 (a blocked thread does not block the others of
// its process).
// Every value is checked.
// Correct: must produce no findings.
#define _DEFAULT_SOURCE // usleep
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

enum { THREADS = 4, N = 16, STEPS = 4 };

static int errors[THREADS];

int main(int argc, char **argv)
{
    int provided, rank, size, sum = 0, total = 0;
    double correction = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "ok_mt_slow_sender: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    omp_set_dynamic(0);
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num(), other = 1 - rank;
        if (omp_get_num_threads() != THREADS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        if (t >= 2) {
            double out[N], in[N];
            for (int step = 0; step < STEPS; step++) {
                for (int i = 0; i < N; i++)
                    out[i] = 100 * rank + 10 * step + i;
                MPI_Sendrecv(out, N, MPI_DOUBLE, other, t, in, N, MPI_DOUBLE, other, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < N; i++)
                    errors[t] += in[i] != 100 * other + 10 * step + i;
            }
        } else if (t == 1 && rank == 0) {
            MPI_Recv(&correction, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errors[t] += correction != 0.75;
        } else if (t == 1) {
            usleep(1000 * 1000); // the coarse-grid solve
            correction = 0.75;
            MPI_Send(&correction, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        } else if (rank == 1) {
            double update;
            MPI_Recv(&update, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errors[t] += update != 1.75;
        }
#pragma omp barrier
        if (t == 0 && rank == 0) {
            double update = 1 + correction;
            MPI_Send(&update, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        }
    }

    for (int t = 0; t < THREADS; t++) {
        if (errors[t])
            fprintf(stderr, "rank %d thread %d: %d wrong values\n", rank, t, errors[t]);
        sum += errors[t];
    }
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mt_slow_sender: OK\n");
    MPI_Finalize();
    return total != 0;
}
