/* errors.c: a program with one planted mistake, for the gdb test of
 * 'mpi break-on-error' and 'mpi errors' (cmd/mpidbg/gdb_test.go): the send
 * reads ints 0-3 of buf while the receive posted before it writes ints
 * 2-5 (buffer-overlap, MPI-4.1 §3.7.2: a buffer being received into must
 * not be accessed by another operation). Run as a singleton, to itself. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int buf[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Irecv(&buf[2], 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&buf[0], 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &reqs[1]); // the faulty call
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    printf("buf[2] = %d\n", buf[2]);
    MPI_Finalize();
    return 0;
}
