// ranks: 3
//
// bug_message_truncated_irecv.c: rank 0 receives one row from each other
// rank with MPI_Irecv of one row_t (a contiguous type of 8 ints); the rows
// grew to 10 ints and the senders send all 10.
// Breaks MPI-4.1 §3.2.4 (and §3.7.2: a nonblocking receive follows the
// same rules): a message longer than the receive buffer is an overflow
// error (MPI_ERR_TRUNCATE).
// Expected: message-truncated at the MPI_Irecv (rank 0), the call that
// named the buffer and datatype, not at the MPI_Wait where MPI reports the
// error.
//
// MPICH returns MPI_ERR_TRUNCATE from each MPI_Wait (the default handler
// would abort the job): MPI_ERRORS_RETURN lets the program go on. MPI_Wait
// completes each request even when it fails; MPICH's MPI_Waitall would
// stop at the first failure and leave the other requests pending
// (MPI_ERR_PENDING in their statuses).
#include <mpi.h>

#define OLD_LEN 8
#define LEN 10

int main(int argc, char **argv)
{
    int rank, size, i;
    int rows[8][LEN];
    MPI_Datatype row_t;
    MPI_Request r[8];
    MPI_Status st[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        MPI_Type_contiguous(OLD_LEN, MPI_INT, &row_t);
        MPI_Type_commit(&row_t);
        for (i = 1; i < size; i++)
            MPI_Irecv(rows[i], 1, row_t, i, 0, MPI_COMM_WORLD, &r[i - 1]); // want "message-truncated"
        for (i = 1; i < size; i++)
            MPI_Wait(&r[i - 1], &st[i - 1]);
        MPI_Type_free(&row_t);
    } else {
        for (i = 0; i < LEN; i++)
            rows[0][i] = rank * 100 + i;
        MPI_Send(rows[0], LEN, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
