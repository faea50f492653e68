// ranks: 2
// cflags: -fopenmp
//
// bug_mt_lost_message.c: two ranks with an OpenMP team of 4 threads each
// (MPI_THREAD_MULTIPLE), as ok_mt_all_received.c: each thread owns one
// block of a 1-D field, swaps its edge values with the same thread of the
// other rank (MPI_Sendrecv, tag = thread number) and relaxes its block,
// clipping values above a limit. Then rank 1's threads each send their
// block's diagnostics to rank 0 (tag 100 + thread) and, when the block
// clipped, a warning record (tag 200 + thread). Rank 0 was changed to
// read only the diagnostics: only block 3 clips, so rank 1's thread 3
// sends a warning nobody ever receives; it is small, so MPI_Send
// completes at once.
// Breaks MPI-4.1 §11.2.2 (and §3.5): before MPI_FINALIZE a process must
// complete all its communication; a message that no receive matches is
// never delivered.
// Expected: lost-message at the MPI_Send of the warning (sent by rank 1's
// thread 3, tag 203; rank 0, the destination, reports it at
// MPI_Finalize). The other threads' messages are all received.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

enum { THREADS = 4, N = 8, STEPS = 4, LIMIT = 500 };

static int diags[THREADS][2];

int main(int argc, char **argv)
{
    int provided, rank, size;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "bug_mt_lost_message: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    omp_set_dynamic(0);
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num(), other = 1 - rank, clipped = 0;
        int u[N + 2];
        if (omp_get_num_threads() != THREADS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int i = 1; i <= N; i++)
            u[i] = 40 * t * t + 10 * rank + i;
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
            int diag[2] = {t, u[1] + u[N]};
            MPI_Send(diag, 2, MPI_INT, 0, 100 + t, MPI_COMM_WORLD);
            if (clipped > 0) {
                int warn[2] = {t, clipped};
                MPI_Send(warn, 2, MPI_INT, 0, 200 + t, MPI_COMM_WORLD); // want "lost-message" "tag 203"
            }
        } else {
            MPI_Recv(diags[t], 2, MPI_INT, 1, 100 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            // bug: the warning (tag 200 + t) is never received
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return diags[0][0] < 0;
}
