// ranks: 3
//
// ok_mprobe_out_of_order.c: a server takes work from two clients. Each
// client sends, on one tag, a header (two ints: item number and length),
// a payload of doubles and a text trailer. The server claims the header
// and the payload with MPI_Mprobe (MPI-4.1 §3.8.2: a matched message
// leaves the matching queue and is the program's, named by its
// MPI_Message handle), sizes the payload from the probe's status, then
// starts the payload's MPI_Imrecv first, takes the trailer with a plain
// MPI_Recv of the same source and tag, and receives the header last. The
// trailer is the first message still in matching, so MPI_Recv gets it
// (§3.5); each MPI_Mrecv gets the message its probe claimed, whatever
// ran between. Every type matches: no finding.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG = 7, ROUNDS = 20 };

static void client(int rank)
{
    for (int it = 0; it < ROUNDS; it++) {
        int n = 3 + (it * 5 + rank) % 11;
        int head[2] = {it, n};
        double *pay = malloc(sizeof *pay * (size_t)n);
        for (int i = 0; i < n; i++)
            pay[i] = rank * 1000.0 + it + i / 8.0;
        char text[32];
        int len = snprintf(text, sizeof text, "client %d item %d", rank, it) + 1;
        MPI_Send(head, 2, MPI_INT, 0, TAG, MPI_COMM_WORLD);
        MPI_Send(pay, n, MPI_DOUBLE, 0, TAG, MPI_COMM_WORLD);
        MPI_Send(text, len, MPI_CHAR, 0, TAG, MPI_COMM_WORLD);
        free(pay);
    }
}

static int serve(void)
{
    int ok = 1;
    for (int it = 0; it < ROUNDS; it++) {
        for (int from = 1; from <= 2; from++) {
            MPI_Message mhead, mpay;
            MPI_Status st;
            int n, len;
            MPI_Mprobe(from, TAG, MPI_COMM_WORLD, &mhead, MPI_STATUS_IGNORE);
            MPI_Mprobe(from, TAG, MPI_COMM_WORLD, &mpay, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            double *pay = malloc(sizeof *pay * (size_t)n);
            MPI_Request r;
            MPI_Imrecv(pay, n, MPI_DOUBLE, &mpay, &r);

            char text[32];
            MPI_Recv(text, (int)sizeof text, MPI_CHAR, from, TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_CHAR, &len);

            int head[2];
            MPI_Mrecv(head, 2, MPI_INT, &mhead, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);

            char want[32];
            snprintf(want, sizeof want, "client %d item %d", from, it);
            if (head[0] != it || head[1] != n || strcmp(text, want) != 0 || pay[n - 1] != from * 1000.0 + it + (n - 1) / 8.0)
                ok = 0;
            free(pay);
        }
    }
    return ok;
}

int main(int argc, char **argv)
{
    int rank, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        ok = serve();
    else if (rank <= 2)
        client(rank);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf(ok ? "ok_mprobe_out_of_order: OK\n" : "ok_mprobe_out_of_order: WRONG DATA\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
