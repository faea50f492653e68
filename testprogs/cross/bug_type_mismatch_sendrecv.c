// ranks: 5
//
// bug_type_mismatch_sendrecv.c: a ring shift with MPI_Sendrecv: every
// rank sends two ints to its right neighbour and receives its left
// neighbour's two values, but declares the receive as MPI_UNSIGNED (the
// receive buffer is an unsigned array).
// Breaks MPI-4.1 §3.3.1: INT and UNSIGNED are different basic types; the
// send's type signature (INT INT) must match the receive's (UNSIGNED
// UNSIGNED).
// Expected: type-mismatch at the MPI_Sendrecv (every rank: each receives a
// mismatched message).
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, out[2];
    unsigned in[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    out[0] = rank;
    out[1] = -rank;
    MPI_Sendrecv(out, 2, MPI_INT, right, 0, in, 2, MPI_UNSIGNED, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"

    MPI_Finalize();
    return 0;
}
