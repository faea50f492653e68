// ranks: 2
//
// bug_persistent_recv_overlap_started.c: a solver sets up a persistent
// receive for its ghost row once (MPI_Recv_init), and in each step starts
// it, then posts a second receive, for a diagnostic value, into the last
// element of the ghost row by mistake (the diagnostic's slot was moved
// into the row when the row grew), while the persistent receive is
// active.
// Breaks MPI-4.1 §3.7.2 (and §3.9 for persistent requests, active from
// MPI_Start to its completion): the buffer of an active receive must
// not be written by another operation; the two receives write the same
// bytes in an order MPI does not define.
// Expected: buffer-overlap at the MPI_Irecv, with the MPI_Start that
// started the persistent receive as the related place (not the
// MPI_Recv_init that made it, a step earlier).
#include <mpi.h>

enum { ROW = 16, STEPS = 2 };

int main(int argc, char **argv)
{
    int rank;
    double ghost[ROW], row[ROW], diag = 0;
    MPI_Request rq[2];
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    for (int i = 0; i < ROW; i++)
        row[i] = rank;
    MPI_Recv_init(ghost, ROW, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &rq[0]);
    for (int s = 0; s < STEPS; s++) {
        MPI_Start(&rq[0]); // related "buffer-overlap"
        MPI_Irecv(&ghost[ROW - 1], 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &rq[1]); // want "buffer-overlap"
        MPI_Send(row, ROW, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
        MPI_Send(&diag, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
        MPI_Waitall(2, rq, st);
    }
    MPI_Request_free(&rq[0]);
    MPI_Finalize();
    return 0;
}
