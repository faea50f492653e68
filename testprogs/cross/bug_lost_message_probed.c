// ranks: 2
//
// bug_lost_message_probed.c: rank 0 takes requests of any size from rank
// 1. It claims each with MPI_Mprobe and sizes its buffer from the
// status; a request larger than its limit takes an error path that logs
// and goes on, and was changed to forget the claimed message instead of
// receiving it into a scratch buffer.
// Breaks MPI-4.1 §3.8.2 with §11.2.2: a message a matched probe claimed
// leaves the matching queue, and only MPI_Mrecv or MPI_Imrecv with its
// handle can receive it; one never received is never delivered, and a
// process must complete its communication before MPI_FINALIZE.
// Expected: lost-message at rank 1's send of the large request (rank 0
// reports it at MPI_Finalize); the requests received are clean.
#include <mpi.h>
#include <stdlib.h>

enum { LIMIT = 64, TAG = 3 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        static int req[3][100];
        int len[3] = {10, 100, 20};
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < len[i]; k++)
                req[i][k] = i * 1000 + k;
            if (i == 1)
                MPI_Send(req[i], len[i], MPI_INT, 0, TAG, MPI_COMM_WORLD); // want "lost-message"
            else
                MPI_Send(req[i], len[i], MPI_INT, 0, TAG, MPI_COMM_WORLD);
        }
    } else if (rank == 0) {
        for (int i = 0; i < 3; i++) {
            MPI_Message m;
            MPI_Status st;
            int n;
            MPI_Mprobe(1, TAG, MPI_COMM_WORLD, &m, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            if (n > LIMIT)
                continue; // bug: the claimed message is never received
            int *buf = malloc(sizeof *buf * (size_t)n);
            MPI_Mrecv(buf, n, MPI_INT, &m, MPI_STATUS_IGNORE);
            free(buf);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
