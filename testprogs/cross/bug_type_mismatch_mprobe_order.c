// ranks: 3
//
// bug_type_mismatch_mprobe_order.c: the server of ok_mprobe_out_of_order.c,
// where client 2 was changed to send its payload as pairs of floats.
// The server claims each client's header and payload with MPI_Mprobe,
// sizes the payload with MPI_Get_count in doubles (which the float bytes
// happen to fill exactly), receives the payload first, the trailer with a
// plain MPI_Recv and the header last.
// Breaks MPI-4.1 §3.3.1: client 2's payload signature (FLOAT...) does not
// match the receive's (DOUBLE...); MPI_Get_count on the probe's status
// counts bytes, so it hides the mismatch.
// Expected: type-mismatch at the payload's MPI_Imrecv only, with client
// 2's payload send as the related site: each MPI_Mrecv receives the
// message its probe claimed, whatever was received between.
#include <mpi.h>
#include <stdlib.h>

enum { TAG = 7, ROUNDS = 4 };

static void client(int rank)
{
    for (int it = 0; it < ROUNDS; it++) {
        int n = 4 + 2 * it;
        int head[2] = {it, n};
        float *pay = malloc(sizeof *pay * 2 * (size_t)n);
        for (int i = 0; i < 2 * n; i++)
            pay[i] = (float)(rank + it + i);
        char text[8] = "done";
        MPI_Send(head, 2, MPI_INT, 0, TAG, MPI_COMM_WORLD);
        if (rank == 2)
            MPI_Send(pay, 2 * n, MPI_FLOAT, 0, TAG, MPI_COMM_WORLD); // bug: the server takes doubles
        else
            MPI_Send(pay, n, MPI_DOUBLE, 0, TAG, MPI_COMM_WORLD);
        MPI_Send(text, 5, MPI_CHAR, 0, TAG, MPI_COMM_WORLD);
        free(pay);
    }
}

static void serve(void)
{
    for (int it = 0; it < ROUNDS; it++) {
        for (int from = 1; from <= 2; from++) {
            MPI_Message mhead, mpay;
            MPI_Status st;
            int n;
            MPI_Mprobe(from, TAG, MPI_COMM_WORLD, &mhead, MPI_STATUS_IGNORE);
            MPI_Mprobe(from, TAG, MPI_COMM_WORLD, &mpay, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            double *pay = malloc(sizeof *pay * (size_t)n);
            MPI_Request r;
            MPI_Imrecv(pay, n, MPI_DOUBLE, &mpay, &r); // want "type-mismatch" "MPI_FLOAT"
            char text[8];
            MPI_Recv(text, (int)sizeof text, MPI_CHAR, from, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int head[2];
            MPI_Mrecv(head, 2, MPI_INT, &mhead, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            free(pay);
        }
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        serve();
    else if (rank <= 2)
        client(rank);
    MPI_Finalize();
    return 0;
}
