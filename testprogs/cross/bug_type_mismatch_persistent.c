// ranks: 3
//
// bug_type_mismatch_persistent.c: ranks 1 and 2 send one double per
// iteration to rank 0 through persistent requests (MPI_Send_init); rank 0
// receives each through MPI_Recv_init, but describes the value as two
// MPI_FLOAT (8 bytes: the sizes agree, the types do not). Three
// iterations with MPI_Startall / MPI_Waitall.
// Breaks MPI-4.1 §3.3.1 (and §3.9: a persistent request's communication
// follows the rules of the operation it stands for): the send's type
// signature (DOUBLE) must match the receive's (FLOAT FLOAT).
// Expected: type-mismatch at the MPI_Recv_init (rank 0), the call that
// named the receive's buffer and datatype, once for every iteration and
// sender (one merged finding).
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, i, it;
    double x;
    float got[8][2];
    MPI_Request r[8];
    MPI_Status sts[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        for (i = 1; i < size; i++)
            MPI_Recv_init(got[i], 2, MPI_FLOAT, i, 3, MPI_COMM_WORLD, &r[i - 1]); // want "type-mismatch"
        for (it = 0; it < 3; it++) {
            MPI_Startall(size - 1, r);
            MPI_Waitall(size - 1, r, sts);
        }
        for (i = 1; i < size; i++)
            MPI_Request_free(&r[i - 1]);
    } else {
        MPI_Send_init(&x, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &r[0]);
        for (it = 0; it < 3; it++) {
            x = rank + 0.25 * it;
            MPI_Start(&r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&r[0]);
    }

    MPI_Finalize();
    return 0;
}
