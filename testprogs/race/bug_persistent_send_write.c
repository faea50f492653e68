// ranks: 2
//
// bug_persistent_send_write.c: rank 0 makes a persistent send with
// MPI_Send_init, starts it with MPI_Start, and stores into the buffer
// before MPI_Wait.
// Breaks MPI-4.1 §3.9 (and §3.7.2): a started persistent send is a
// nonblocking send; its buffer must not be modified until it completes.
// Expected: send-buffer-write at the store (rank 0), the MPI_Start as the
// related location (where the operation started).
//
// Rank 1 posts its receive only after a barrier that rank 0 enters after
// the store. Natively the receiver gets the stored value; the program does
// not check it.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1024 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *buf = malloc(N * sizeof *buf);
    for (int i = 0; i < N; i++)
        buf[i] = i;

    if (rank == 0) {
        MPI_Send_init(buf, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r);
        MPI_Start(&r); // related "send-buffer-write"
        buf[100] *= 2; // want "send-buffer-write"
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Request_free(&r);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(buf, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    free(buf);
    MPI_Finalize();
    return 0;
}
