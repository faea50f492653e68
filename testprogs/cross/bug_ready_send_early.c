// ranks: 3
//
// bug_ready_send_early.c: a pipeline whose stages hand each other
// tiles with MPI_Rsend to skip the rendezvous. Each step every rank
// posts the receive for its next tile with MPI_Irecv, computes, and
// waits; the stages meet at a barrier once per step. Rank 1 sends its
// tile to rank 2 right after the barrier, while rank 2 posts its
// receive only after it has sent its own partial sums to rank 0: nothing
// tells rank 1 that rank 2's receive is there yet.
// Breaks MPI-4.1 §3.4: a send in ready mode may be started only if the
// matching receive is already posted.
// Expected: ready-send-early at the MPI_Rsend (rank 2 finds it), the
// receive's MPI_Irecv related.
//
// Natively MPICH and Open MPI complete: both treat a ready send as a
// standard one.
#include <mpi.h>

#define N 64

int main(int argc, char **argv)
{
    int rank, size, step, i;
    double tile[N], next[N], sums[2] = {0, 0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < N; i++)
        tile[i] = rank + i;

    for (step = 0; step < 3; step++) {
        MPI_Request r = MPI_REQUEST_NULL;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            MPI_Rsend(tile, N, MPI_DOUBLE, 2, step, MPI_COMM_WORLD); // want "ready-send-early" "was not ordered after rank 2 posted"
        if (rank == 2) {
            sums[0] = tile[0];
            sums[1] = tile[N - 1];
            MPI_Send(sums, 2, MPI_DOUBLE, 0, 100 + step, MPI_COMM_WORLD);
            MPI_Irecv(next, N, MPI_DOUBLE, 1, step, MPI_COMM_WORLD, &r); // bug: posted after the barrier, unknown to rank 1
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            for (i = 0; i < N; i++)
                tile[i] = 0.5 * (tile[i] + next[i]);
        }
        if (rank == 0)
            MPI_Recv(sums, 2, MPI_DOUBLE, 2, 100 + step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Finalize();
    return tile[0] < -1;
}
