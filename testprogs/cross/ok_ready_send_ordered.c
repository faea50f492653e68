// ranks: 3
//
// ok_ready_send_ordered.c: the correct twin of bug_ready_send_early.c.
// Ready-mode sends (MPI-4.1 §3.4) whose receives are posted first, and
// the sender told so:
// - each step rank 2 posts MPI_Irecv for its tile and then enters the
//   barrier, after which rank 1 sends with MPI_Rsend;
// - rank 0 posts MPI_Irecv, then sends a zero-byte "ready" message to
//   rank 1, which waits for it and answers with MPI_Irsend;
// - a persistent MPI_Rsend_init from rank 1 started after the same kind
//   of handshake with rank 2;
// - a rank that ready-sends to itself after posting the receive.
// Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define N 16

int main(int argc, char **argv)
{
    int rank, step, i, errors = 0;
    double tile[N], next[N];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < N; i++)
        tile[i] = 10 * rank + i;

    for (step = 0; step < 3; step++) {
        MPI_Request r = MPI_REQUEST_NULL;
        if (rank == 2)
            MPI_Irecv(next, N, MPI_DOUBLE, 1, step, MPI_COMM_WORLD, &r);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            MPI_Rsend(tile, N, MPI_DOUBLE, 2, step, MPI_COMM_WORLD);
        if (rank == 2) {
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (next[1] != 10 + 1)
                errors++;
        }
    }

    // a handshake of one message
    int token = 0;
    if (rank == 0) {
        MPI_Request r;
        MPI_Irecv(next, N, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, &r);
        MPI_Send(&token, 0, MPI_INT, 1, 8, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (next[2] != 12)
            errors++;
    } else if (rank == 1) {
        MPI_Request r;
        MPI_Recv(&token, 0, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irsend(tile, N, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }

    // a persistent ready send, each start after a handshake
    MPI_Request p = MPI_REQUEST_NULL;
    if (rank == 1)
        MPI_Rsend_init(tile, N, MPI_DOUBLE, 2, 9, MPI_COMM_WORLD, &p);
    for (step = 0; step < 2; step++) {
        if (rank == 2) {
            MPI_Request r;
            MPI_Irecv(next, N, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD, &r);
            MPI_Send(&token, 0, MPI_INT, 1, 10, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (next[3] != 13)
                errors++;
        } else if (rank == 1) {
            MPI_Recv(&token, 0, MPI_INT, 2, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Start(&p);
            MPI_Wait(&p, MPI_STATUS_IGNORE);
        }
    }
    if (rank == 1)
        MPI_Request_free(&p);

    // to itself, after posting
    MPI_Request self;
    MPI_Irecv(next, N, MPI_DOUBLE, rank, 11, MPI_COMM_WORLD, &self);
    MPI_Rsend(tile, N, MPI_DOUBLE, rank, 11, MPI_COMM_WORLD);
    MPI_Wait(&self, MPI_STATUS_IGNORE);
    if (next[4] != 10 * rank + 4)
        errors++;

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_ready_send_ordered: OK\n");
    MPI_Finalize();
    return all != 0;
}
