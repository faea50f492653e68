// ranks: 2
//
// bug_message_truncated_completions.c: a collector takes sample packets
// of 4 ints from a sensor rank under MPI_ERRORS_RETURN and completes its
// receives three ways: a batch of 20 with an MPI_Waitsome loop, a batch
// of 8 with an MPI_Waitany loop, and one last packet by polling
// MPI_Test. The sensor sends one packet of each batch with 6 ints (a
// header it forgot to strip). The collector handles each error as
// MPI-4.1 §3.7.5 says (MPI_ERR_IN_STATUS from MPI_Waitsome with each
// completed request's status, the error code itself from MPI_Waitany and
// MPI_Test, whose failed request is completed and freed all the same),
// then sums every packet that arrived whole.
// Breaks MPI-4.1 §3.2.4: a message longer than the receive buffer is an
// overflow error.
// Expected: message-truncated at each of the three MPI_Irecv (rank 1),
// with room for 4; nothing else: every request completed (failed ones
// too), and the buffers of the ones that succeeded are the program's.
#include <mpi.h>

enum { SOME = 20, ANY = 8, BAD_SOME = 13, BAD_ANY = 5 };

static void send_batch(int n, int bad, int tag)
{
    int pkt[SOME][6];
    MPI_Request req[SOME];
    MPI_Status st[SOME];
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 6; k++)
            pkt[i][k] = 100 * i + k;
        MPI_Isend(pkt[i], i == bad ? 6 : 4, MPI_INT, 1, tag + i, MPI_COMM_WORLD, &req[i]);
    }
    MPI_Waitall(n, req, st);
}

int main(int argc, char **argv)
{
    int rank;
    long sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        send_batch(SOME, BAD_SOME, 0);
        send_batch(ANY, BAD_ANY, 100);
        send_batch(1, 0, 200);
    } else if (rank == 1) {
        int pkt[SOME][4], whole[SOME] = {0}, idx[SOME], failed = 0;
        MPI_Request req[SOME];
        MPI_Status st[SOME];
        for (int i = 0; i < SOME; i++)
            MPI_Irecv(pkt[i], 4, MPI_INT, 0, i, MPI_COMM_WORLD, &req[i]); // want "message-truncated" "room for 4"
        for (int left = SOME; left > 0;) {
            int n = 0, rc = MPI_Waitsome(SOME, req, &n, idx, st);
            if (n == MPI_UNDEFINED)
                break;
            for (int k = 0; k < n; k++) {
                if (rc == MPI_SUCCESS || st[k].MPI_ERROR == MPI_SUCCESS)
                    whole[idx[k]] = 1;
                else
                    failed++;
            }
            left -= n;
        }
        for (int i = 0; i < SOME; i++)
            if (whole[i])
                sum += pkt[i][0];
        for (int i = 0; i < ANY; i++)
            MPI_Irecv(pkt[i], 4, MPI_INT, 0, 100 + i, MPI_COMM_WORLD, &req[i]); // want "message-truncated" "room for 4"
        for (int k = 0; k < ANY; k++) {
            int i = -1;
            MPI_Status s;
            if (MPI_Waitany(ANY, req, &i, &s) == MPI_SUCCESS)
                sum += pkt[i][0];
            else
                failed++;
        }
        MPI_Request last;
        MPI_Irecv(pkt[0], 4, MPI_INT, 0, 200, MPI_COMM_WORLD, &last); // want "message-truncated" "room for 4"
        int flag = 0, rc = MPI_SUCCESS;
        while (!flag)
            rc = MPI_Test(&last, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS && last == MPI_REQUEST_NULL)
            failed++;
        if (failed != 3)
            return 3;
    }
    MPI_Finalize();
    return sum < 0;
}
