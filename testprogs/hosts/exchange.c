// exchange.c: a ring shift of each rank's boundary row, run across the
// test hosts (cmd/mpidbg's multi-host tests). Every rank makes the same
// two mistakes, so that each host's ranks have findings in the one report:
// the row goes out as MPI_INT and is received as MPI_FLOAT (type-mismatch,
// MPI-4.1 §3.3.1), and the row type is never freed (leak-type, §5.1.9).
// With an argument N, rank N then dies of SIGSEGV after a barrier, once
// every finding has been made.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define COLS 8

int *nowhere;

int main(int argc, char **argv)
{
    int rank, size, out[COLS];
    float in[COLS];
    char host[256];
    MPI_Datatype row;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof host);

    for (int i = 0; i < COLS; i++)
        out[i] = rank * COLS + i;
    MPI_Type_contiguous(COLS, MPI_INT, &row);
    MPI_Type_commit(&row); /* leak */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(out, 1, row, right, 0, in, COLS, MPI_FLOAT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* mismatch */
    printf("exchange: rank %d of %d on %s\n", rank, size, host);
    fflush(stdout);

    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 1 && rank == atoi(argv[1]))
        *nowhere = 1; /* crash */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
