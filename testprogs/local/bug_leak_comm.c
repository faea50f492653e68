// ranks: 2
//
// bug_leak_comm.c: a library duplicates MPI_COMM_WORLD for its own traffic
// and never frees the duplicate.
// Warns about MPI-4.1 §7.4.3: communicators are freed with MPI_COMM_FREE.
// Expected: leak-comm (warning), reported at MPI_Finalize against the line
// that created the communicator (the MPI_Comm_dup, both ranks).
#include <mpi.h>
#include <stdio.h>

static MPI_Comm lib_comm = MPI_COMM_NULL;

static int lib_sum(int v)
{
    int s = 0;
    if (lib_comm == MPI_COMM_NULL)
        MPI_Comm_dup(MPI_COMM_WORLD, &lib_comm); // want "leak-comm"
    MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, lib_comm);
    return s;
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int s = lib_sum(rank + 1);
    // bug: the library has no finalize function that frees lib_comm

    if (s != 3)
        printf("rank %d: sum %d\n", rank, s);
    MPI_Finalize();
    return 0;
}
