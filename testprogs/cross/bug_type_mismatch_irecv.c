// ranks: 4
//
// bug_type_mismatch_irecv.c: rank 0 posts one MPI_Irecv of a float
// residual per other rank, then MPI_Waitall. Ranks 1 and 2 send MPI_FLOAT;
// rank 3 sends its residual as MPI_INT (it keeps it scaled in an int).
// Breaks MPI-4.1 §3.3.1: the send's type signature (INT) must match the
// receive's (FLOAT).
// Expected: type-mismatch at the MPI_Irecv that named the buffer and
// datatype (rank 0), not at the MPI_Waitall where the receive completes.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, i;
    float res[8];
    MPI_Request r[8];
    MPI_Status sts[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        for (i = 1; i < size; i++)
            MPI_Irecv(&res[i], 1, MPI_FLOAT, i, 7, MPI_COMM_WORLD, &r[i]); // want "type-mismatch"
        MPI_Waitall(size - 1, &r[1], sts);
    } else if (rank == 3) {
        int scaled = 1000 * rank;
        MPI_Send(&scaled, 1, MPI_INT, 0, 7, MPI_COMM_WORLD); // bug: MPI_INT, rank 0 expects MPI_FLOAT
    } else {
        float f = 0.5f * rank;
        MPI_Send(&f, 1, MPI_FLOAT, 0, 7, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
