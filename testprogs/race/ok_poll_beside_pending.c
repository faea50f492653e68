// ranks: 2
//
// ok_poll_beside_pending.c: the correct twin of
// bug_irecv_peek_in_poll_loop.c. Rank 0 receives a block of results with
// MPI_Irecv and polls it with MPI_Test between 4000 units of work on a
// table that shares the block's last memory page; it reads the block only
// once MPI_Test or MPI_Wait said the receive completed (MPI-4.1 §3.7.3).
// Rank 1 sends a second later, from outside any MPI call. The table's accesses are the
// program's own memory: no finding, and the loop must not crawl (the
// tracker backs off a page whose accesses are never the buffer's).
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { N = 700, UNITS = 4000 };

int main(int argc, char **argv)
{
    int rank, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* two pages of their own: the block, then the table on its last page
     * (nothing else of the heap, which MPI's progress may write, there) */
    double *in = NULL;
    if (posix_memalign((void **)&in, 4096, 8192) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double *table = in + N;
    for (int i = 0; i < 256; i++)
        table[i] = i;
    if (rank == 0) {
        MPI_Request r;
        int flag = 0;
        double s = 0;
        MPI_Irecv(in, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &r);
        for (int u = 0; u < UNITS; u++) {
            for (int i = 0; i < 256; i++)
                s += table[i];
            table[u % 256] += 1;
            if (!flag)
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        }
        if (!flag)
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        ok = in[N - 1] == N - 1 && s > 0;
    } else if (rank == 1) {
        for (int i = 0; i < N; i++)
            in[i] = i;
        usleep(1000000); /* outside MPI: no rank waits for another while rank 0 polls */
        MPI_Send(in, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
    free(in);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf(ok ? "ok_poll_beside_pending: OK\n" : "ok_poll_beside_pending: WRONG DATA\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
