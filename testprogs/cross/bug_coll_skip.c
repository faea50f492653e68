// ranks: 3
// native: hangs
//
// bug_coll_skip.c: ranks with particles add up their energies with
// MPI_Allreduce; the last rank has none, skips the reduction and waits for
// rank 0's "done" message, which rank 0 sends after the reduction.
// Breaks MPI-4.1 §6.1: every process of the communicator must call the
// collective.
// Expected: deadlock at rank 0's MPI_Allreduce (ranks 0 and 1 wait in the
// collective for rank 2, rank 2 waits in MPI_Recv for rank 0). No
// collective-mismatch: rank 2 calls no other collective in its place.
//
// Natively MPICH hangs the same way.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, done = 0, nparticles;
    double e, etot = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    nparticles = rank == size - 1 ? 0 : 10 + rank;
    e = 0.5 * nparticles;
    if (nparticles > 0) // bug: the collective must be called by every rank
        MPI_Allreduce(&e, &etot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); // want "deadlock"
    if (rank == 0) {
        done = 1;
        MPI_Send(&done, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD);
    } else if (rank == size - 1) {
        MPI_Recv(&done, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Finalize();
    return etot < 0;
}
