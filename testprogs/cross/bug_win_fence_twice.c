// ranks: 3
// native: hangs
//
// bug_win_fence_twice.c: a ring halo exchange with MPI_Put in fence
// epochs, two steps. After the first step rank 0 calls its "flush
// results" helper, which ends with an MPI_Win_fence of its own: rank 0
// has called one fence more than the others from then on, and its last
// fence meets the others' MPI_Win_free, a different collective.
// Breaks MPI-4.1 §12.5.1: MPI_Win_fence is collective over the window's
// group; every process must make the same sequence of fence calls (and
// §12.2.5: MPI_Win_free is collective too).
// Expected: deadlock at rank 0's last MPI_Win_fence (collective 5 on the
// window: a fence on rank 0, MPI_Win_free on ranks 1 and 2), and mpidbg
// ends the job.
//
// Natively MPICH and Open MPI hang.
#include <mpi.h>

#define N 8

static void flush_results(MPI_Win win, const double *mine, double *out)
{
    int i;
    for (i = 0; i < N; i++)
        out[i] = mine[i];
    MPI_Win_fence(0, win); // bug: the helper must not synchronise the window
}

int main(int argc, char **argv)
{
    int rank, size, i, step;
    double *halo, mine[N], out[N];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &halo, &win);

    for (step = 0; step < 2; step++) {
        for (i = 0; i < N; i++)
            mine[i] = rank + step + 0.1 * i;
        MPI_Win_fence(0, win);
        MPI_Put(mine, N, MPI_DOUBLE, (rank + 1) % size, 0, N, MPI_DOUBLE, win);
        MPI_Win_fence(0, win); // want "deadlock"
        if (rank == 0 && step == 0)
            flush_results(win, mine, out);
    }
    MPI_Win_free(&win);

    MPI_Finalize();
    return out[0] < 0 && halo == 0;
}
