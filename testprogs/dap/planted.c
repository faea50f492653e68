/* planted.c: rank 2 makes one mistake, for the DAP tests: its send reads
 * ints 0-3 of buf while the receive it posted just before writes ints
 * 2-5 (buffer-overlap, MPI-4.1 §3.7.2: a buffer being received into must
 * not be accessed by another operation until the receive completes). The
 * other ranks do the same exchange with separate halves. Run with 4
 * ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, buf[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    MPI_Request reqs[2];
    MPI_Datatype row;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(2, 2, 4, MPI_INT, &row);
    MPI_Type_commit(&row);
    int *recvbuf = rank == 2 ? &buf[2] : &buf[4];
    MPI_Irecv(recvbuf, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&buf[0], 4, MPI_INT, rank, 1, MPI_COMM_WORLD, &reqs[1]); // FAULT buffer-overlap
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MPI_Type_free(&row);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) // AFTER
        printf("done\n");
    MPI_Finalize();
    return 0;
}
