// ranks: 3
//
// bug_type_mismatch_byte.c: rank 0 receives raw records as bytes to
// checksum them. Rank 2 sends its record as 16 MPI_BYTE (matches); rank 1
// sends its four ints as MPI_INT, and rank 0 receives them as 16 MPI_BYTE.
// Breaks MPI-4.1 §3.3.1: MPI_BYTE matches only MPI_BYTE (MPI_PACKED is the
// type that matches any, §5.2); INT INT INT INT does not match 16 BYTE.
// Expected: type-mismatch at the MPI_Recv of rank 1's record (rank 0);
// nothing at the MPI_Recv of rank 2's.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    unsigned char raw[16];
    int rec[4] = {1, 2, 3, 4};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Recv(raw, 16, MPI_BYTE, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(raw, 16, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
    } else if (rank == 1) {
        MPI_Send(rec, 4, MPI_INT, 0, 0, MPI_COMM_WORLD); // bug: received as MPI_BYTE
    } else {
        MPI_Send(rec, (int)sizeof rec, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
