// ranks: 2
//
// bug_irecv_peek_in_poll_loop.c: rank 0 receives a block of results with
// MPI_Irecv and polls it with MPI_Test between units of work on a table
// that shares the block's last memory page (thousands of accesses to the
// table between two polls). After 1500 polls the loop was changed to
// peek at the block's last value before each unit, to decide early
// whether it is worth waiting for, before MPI_Test said the receive
// completed.
// Breaks MPI-4.1 §3.7.2: the receive buffer must not be accessed until
// the receive completes. Rank 1 sends only when told, after the loop.
// Expected: recv-buffer-access at the peek, though the tracker had long
// stopped paying for the table's accesses at every poll.
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <stdlib.h>

enum { N = 700, UNITS = 4000, PEEK = 1500 };

int main(int argc, char **argv)
{
    int rank;
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
        int flag = 0, go = 1, early = 0;
        double s = 0;
        MPI_Irecv(in, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &r);
        for (int u = 0; u < UNITS; u++) {
            if (u >= PEEK && !flag)
                early += in[N - 1] > 0; // want "recv-buffer-access"
            for (int i = 0; i < 256; i++)
                s += table[i];
            if (!flag)
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        }
        MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        if (!flag)
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (s < 0 || early < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (rank == 1) {
        int go;
        for (int i = 0; i < N; i++)
            in[i] = i;
        MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(in, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
    free(in);
    MPI_Finalize();
    return 0;
}
