// ranks: 2
//
// ok_waitall_reversed.c: rank 1 sends a header (4 ints) and then a
// payload (8 doubles) with the same tag; rank 0 posts MPI_Irecv for the
// header, then for the payload, and completes them with MPI_Waitall over
// an array that lists the payload's request first (it was filled from
// the end). MPI matches the two messages to the receives in the order the
// receives were posted (MPI-4.1 §3.5, non-overtaking), whatever the order
// of the array given to MPI_Waitall (§3.7.5). Then the same with
// MPI_Waitsome, and with persistent receives started in the reverse order
// of their creation.
// Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int round = 0; round < 3; round++) {
        if (rank == 1) {
            int header[4] = {round, 1, 2, 3};
            double payload[8];
            for (int i = 0; i < 8; i++)
                payload[i] = round + i / 8.0;
            MPI_Send(header, 4, MPI_INT, 0, 7, MPI_COMM_WORLD);
            MPI_Send(payload, 8, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
        } else if (rank == 0) {
            int header[4] = {-1, -1, -1, -1};
            double payload[8] = {0};
            MPI_Request reqs[2];
            MPI_Status st[2];
            if (round < 2) {
                MPI_Irecv(header, 4, MPI_INT, 1, 7, MPI_COMM_WORLD, &reqs[1]);
                MPI_Irecv(payload, 8, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, &reqs[0]);
                if (round == 0) {
                    MPI_Waitall(2, reqs, st);
                } else {
                    int left = 2, n, idx[2];
                    while (left > 0) {
                        MPI_Waitsome(2, reqs, &n, idx, st);
                        left -= n;
                    }
                }
            } else {
                MPI_Recv_init(payload, 8, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, &reqs[0]);
                MPI_Recv_init(header, 4, MPI_INT, 1, 7, MPI_COMM_WORLD, &reqs[1]);
                MPI_Start(&reqs[1]);
                MPI_Start(&reqs[0]);
                MPI_Waitall(2, reqs, st);
                MPI_Request_free(&reqs[0]);
                MPI_Request_free(&reqs[1]);
            }
            if (header[0] != round || header[3] != 3)
                errors++;
            for (int i = 0; i < 8; i++)
                if (payload[i] != round + i / 8.0)
                    errors++;
        }
    }
    if (rank == 0)
        printf(errors ? "ok_waitall_reversed: %d wrong values\n" : "ok_waitall_reversed: OK\n", errors);
    MPI_Finalize();
    return errors != 0;
}
