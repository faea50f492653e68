// ranks: 3
//
// ok_race_other_from_status.c: rank 0 serves two clients in the order
// they ask. It takes the first request from anyone (MPI_ANY_SOURCE, with
// a status), answers that client, then receives the other client's
// request, whose rank it computes from status.MPI_SOURCE. Whichever
// client comes first, both requests are received and both answered: the
// second receive's source follows the first one's, so no order leaves a
// receive waiting (MPI-4.1 §3.5 allows either order; the program handles
// both). Client 2 asks a little later, so one order is the common one.
// Correct: must produce no findings (message-race-info, off by default,
// would describe the race).
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

enum { ASK = 7, ANSWER = 8 };

int main(int argc, char **argv)
{
    int rank, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int req[2], served = 0;
        MPI_Status st;
        MPI_Recv(&req[0], 1, MPI_INT, MPI_ANY_SOURCE, ASK, MPI_COMM_WORLD, &st);
        int first = st.MPI_SOURCE, other = first == 1 ? 2 : 1;
        int reply = req[0] * 10;
        MPI_Send(&reply, 1, MPI_INT, first, ANSWER, MPI_COMM_WORLD);
        served++;
        MPI_Recv(&req[1], 1, MPI_INT, other, ASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        reply = req[1] * 10;
        MPI_Send(&reply, 1, MPI_INT, other, ANSWER, MPI_COMM_WORLD);
        served++;
        bad = served != 2 || req[0] + req[1] != 101 + 102;
    } else {
        if (rank == 2) {
            struct timespec later = {0, 50000000L};
            nanosleep(&later, NULL);
        }
        int ask = 100 + rank, got = 0;
        MPI_Send(&ask, 1, MPI_INT, 0, ASK, MPI_COMM_WORLD);
        MPI_Recv(&got, 1, MPI_INT, 0, ANSWER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bad = got != ask * 10;
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        printf("ok_race_other_from_status: OK\n");
    MPI_Finalize();
    return any;
}
