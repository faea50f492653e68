// ranks: 4
//
// bug_coll_root_mismatch.c: the rank that read the input broadcasts it.
// Rank 1 read it and passes itself as the root; the other ranks assume
// rank 0 is the reader and pass root 0.
// Breaks MPI-4.1 §6.1 (and §6.4, MPI_BCAST): the root argument must have
// the same value on every process.
// Expected: collective-root-mismatch at the MPI_Bcast (every rank).
//
// Natively MPICH completes (ranks 0 and 1 both act as the root and send,
// the others take rank 0's data), with wrong data on rank 1's side.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, have_input, root, param[4] = {0, 0, 0, 0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    have_input = rank == 1;
    if (have_input) {
        param[0] = 64;
        param[3] = 3;
    }
    root = have_input ? rank : 0; // bug: only rank 1 knows it is the reader
    MPI_Bcast(param, 4, MPI_INT, root, MPI_COMM_WORLD); // want "collective-root-mismatch" "rank 1 MPI_Bcast with root 1"

    MPI_Finalize();
    return 0;
}
