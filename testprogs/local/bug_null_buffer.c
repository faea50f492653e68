// ranks: 2
//
// bug_null_buffer.c: the result array is allocated only on rank 0, but
// rank 1 receives 4 integers into it too.
// Breaks MPI-4.1 §3.2.2: the buffer holds count elements of datatype
// starting at buf; NULL is no buffer.
// Expected: null-buffer at the MPI_Recv (rank 1).
//
// MPICH rejects the receive with MPI_ERR_BUFFER (the default handler would
// abort): MPI_ERRORS_RETURN lets the job finish; rank 1 then receives the
// message into a scratch array, so that it does not stay unmatched.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, i, *result = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) { // bug: every rank needs the array
        result = malloc(4 * sizeof *result);
        for (i = 0; i < 4; i++)
            result[i] = i * i;
    }

    if (rank == 0) {
        MPI_Send(result, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        int rc = MPI_Recv(result, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "null-buffer"
        if (rc != MPI_SUCCESS) { // drain the message: UCX warns about unmatched ones
            int scratch[4];
            MPI_Recv(scratch, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }

    free(result);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
