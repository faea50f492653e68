// ranks: 2
//
// bug_irecv_read_before_wait.c: rank 0 posts MPI_Irecv into a heap buffer
// and reads the buffer before MPI_Wait, as if the receive were blocking.
// Breaks MPI-4.1 §3.7.2: the receiver must not access any part of the
// receive buffer after a nonblocking receive operation is called, until
// the receive completes.
// Expected: recv-buffer-access at the read (rank 0), with the MPI_Irecv as
// the related location.
//
// Rank 1 sends only after a barrier that rank 0 enters after the read, so
// the read is certainly before the data arrived (the error state, not the
// latent one). Natively the read sees the initial value.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 256 };

int main(int argc, char **argv)
{
    int rank, early = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *buf = calloc(N, sizeof *buf);

    if (rank == 0) {
        MPI_Irecv(buf, N, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); // related "recv-buffer-access"
        early = buf[7]; // want "recv-buffer-access" "load from the receive buffer .* at offset 28, element \[7\]\(INT\), before the receive completed"
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (buf[7] != 7)
            printf("rank 0: got %d (early read %d)\n", buf[7], early);
    } else {
        for (int i = 0; i < N; i++)
            buf[i] = i;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(buf, N, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }

    free(buf);
    MPI_Finalize();
    return 0;
}
