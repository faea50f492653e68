// ranks: 2
//
// bug_message_truncated_waitall.c: a collector posts 40 receives for the
// sample packets of a sensor rank (4 ints each) and waits for them in one
// MPI_Waitall, with MPI_ERRORS_RETURN so that a bad packet is logged
// rather than fatal; the sensor sends packet 29 with 6 ints (a firmware
// header it forgot to strip). The collector handles MPI_ERR_IN_STATUS as
// MPI-4.1 §3.7.5 says: each status's MPI_ERROR tells which packets
// arrived, which failed, and which are still pending (MPI_ERR_PENDING),
// and it waits again for those.
// Breaks MPI-4.1 §3.2.4: a message longer than the receive buffer is an
// overflow error.
// Expected: message-truncated at the MPI_Irecv (rank 1), with room for 4;
// the program's own recovery runs as it does natively: 39 packets whole,
// one failed (else the collector exits with status 3).
#include <mpi.h>

enum { NPKT = 40, BAD = 29 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int pkt[NPKT][6];
        MPI_Request req[NPKT];
        MPI_Status st[NPKT];
        for (int i = 0; i < NPKT; i++) {
            for (int k = 0; k < 6; k++)
                pkt[i][k] = 100 * i + k;
            MPI_Isend(pkt[i], i == BAD ? 6 : 4, MPI_INT, 1, i, MPI_COMM_WORLD, &req[i]);
        }
        MPI_Waitall(NPKT, req, st);
    } else if (rank == 1) {
        int pkt[NPKT][4];
        MPI_Request req[NPKT];
        MPI_Status st[NPKT];
        for (int i = 0; i < NPKT; i++)
            MPI_Irecv(pkt[i], 4, MPI_INT, 0, i, MPI_COMM_WORLD, &req[i]); // want "message-truncated" "room for 4"
        int rc = MPI_Waitall(NPKT, req, st);
        int good = 0, failed = 0, later = 0;
        if (rc == MPI_ERR_IN_STATUS) {
            for (int i = 0; i < NPKT; i++) {
                if (st[i].MPI_ERROR == MPI_ERR_PENDING) {
                    MPI_Status s;
                    if (MPI_Wait(&req[i], &s) == MPI_SUCCESS && pkt[i][0] == 100 * i)
                        later++;
                    else
                        failed++;
                } else if (st[i].MPI_ERROR == MPI_SUCCESS && pkt[i][0] == 100 * i) {
                    good++;
                } else {
                    failed++;
                }
            }
        }
        if (rc != MPI_ERR_IN_STATUS || good + later != NPKT - 1 || failed != 1)
            return 3;
    }
    MPI_Finalize();
    return 0;
}
