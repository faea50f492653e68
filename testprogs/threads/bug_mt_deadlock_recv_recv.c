// ranks: 2
// native: hangs
// cflags: -fopenmp
//
// bug_mt_deadlock_recv_recv.c: two ranks with an OpenMP team of 4 threads
// each (MPI_THREAD_MULTIPLE). Threads 0, 2 and 3 run a halo exchange with
// the same thread of the other rank (MPI_Sendrecv, tag = thread number)
// and finish, waiting at the end of the parallel region. Thread 1
// exchanges the ranks' checksums, but both ranks receive the other's
// checksum before they send their own (head-to-head blocking receives).
// Breaks MPI-4.1 §3.5 (progress): a blocking receive completes only once
// a matching send is started; each rank's send comes after a receive only
// the other could satisfy, so neither thread 1 can proceed, and the other
// threads wait for it at the region's implicit barrier.
// Expected: deadlock at rank 0's MPI_Recv in thread 1 (the lowest rank of
// the cycle 0 -> 1 -> 0); mpidbg ends the job.
//
// Natively MPICH and Open MPI hang the same way.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

enum { THREADS = 4, N = 16, STEPS = 4 };

static double last[THREADS];

int main(int argc, char **argv)
{
    int provided, rank, size;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_deadlock_recv_recv: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    omp_set_dynamic(0);
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num(), other = 1 - rank;
        if (omp_get_num_threads() != THREADS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        if (t == 1) {
            long mine = 1000 + rank, theirs = 0;
            MPI_Recv(&theirs, 1, MPI_LONG, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
            MPI_Send(&mine, 1, MPI_LONG, other, 1, MPI_COMM_WORLD);
            last[t] = (double)theirs;
        } else {
            double out[N], in[N];
            for (int step = 0; step < STEPS; step++) {
                for (int i = 0; i < N; i++)
                    out[i] = 100 * rank + 10 * step + i;
                MPI_Sendrecv(out, N, MPI_DOUBLE, other, t, in, N, MPI_DOUBLE, other, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                last[t] = in[N - 1];
            }
        }
    }

    MPI_Finalize();
    return last[0] < 0;
}
