// ranks: 2
//
// bug_icoll_recv_read.c: both ranks start MPI_Iallreduce and rank 0 reads
// the receive buffer before MPI_Wait, as if the reduction were blocking.
// Breaks MPI-4.1 §6.12 (and §3.7.2): the buffers of a nonblocking
// collective must not be accessed until the operation completes.
// Expected: recv-buffer-access at the read (rank 0), the MPI_Iallreduce
// as the related location.
//
// Rank 1 starts its MPI_Iallreduce only after a message that rank 0 sends
// after the read, so the result certainly is not there yet. Natively the
// read sees the initial value.
#include <mpi.h>
#include <stdio.h>

static long partial[64], total[64];

int main(int argc, char **argv)
{
    int rank, token = 1;
    long early = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 64; i++)
        partial[i] = rank + i;

    if (rank == 0) {
        MPI_Iallreduce(partial, total, 64, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r); // related "recv-buffer-access"
        early = total[5]; // want "recv-buffer-access"
        MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Iallreduce(partial, total, 64, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (total[5] != 11)
        printf("rank %d: total[5] = %ld (early %ld)\n", rank, total[5], early);

    MPI_Finalize();
    return 0;
}
