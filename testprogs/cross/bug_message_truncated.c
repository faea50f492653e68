// ranks: 4
//
// bug_message_truncated.c: ranks 1-3 each send a row of 8 doubles to rank
// 0, which receives each row with a count of 4 (it uses the width of the
// old, smaller grid).
// Breaks MPI-4.1 §3.2.4: a message longer than the receive buffer is an
// overflow error (MPI_ERR_TRUNCATE).
// Expected: message-truncated at the MPI_Recv (rank 0), naming rank 1-3's
// MPI_Send and the first element without room.
//
// MPICH returns MPI_ERR_TRUNCATE (the default handler would abort the
// job): MPI_ERRORS_RETURN lets the program go on with the prefix.
#include <mpi.h>

#define NX 8
#define OLD_NX 4

int main(int argc, char **argv)
{
    int rank, size, src, i;
    double row[NX];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        for (src = 1; src < size; src++)
            MPI_Recv(row, OLD_NX, MPI_DOUBLE, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "message-truncated" "sends 8 element.* has room for 4"
    } else {
        for (i = 0; i < NX; i++)
            row[i] = rank + 0.1 * i;
        MPI_Send(row, NX, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
