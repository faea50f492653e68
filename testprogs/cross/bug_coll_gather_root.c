// ranks: 2
// native: hangs
//
// bug_coll_gather_root.c: the rank that read the mesh collects every
// rank's cell count with MPI_Gather. Rank 1 read it and names itself the
// root; rank 0 assumes the reader is rank 0, as in the serial version.
// Breaks MPI-4.1 §6.1 (and §6.5, MPI_GATHER): the root argument must have
// the same value on every process.
// Expected: collective-root-mismatch at the MPI_Gather (both ranks),
// before MPI sees the call. Both ranks then wait as roots for the other's
// block, for ever: every rank reached the same collective, so the
// wait-for graph sees no deadlock, but the ranks wait in the call that
// reported the mismatch, and mpidbg ends the job after the deadlock
// timeout with a note saying so.
//
// Natively MPICH and Open MPI hang.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, have_mesh, root, ncells, counts[2] = {0, 0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    have_mesh = rank == 1;
    ncells = 1000 + 10 * rank;
    root = have_mesh ? rank : 0; // bug: only rank 1 knows it read the mesh
    MPI_Gather(&ncells, 1, MPI_INT, counts, 1, MPI_INT, root, MPI_COMM_WORLD); // want "collective-root-mismatch" "rank 0 MPI_Gather with root 0; rank 1 MPI_Gather with root 1"

    MPI_Finalize();
    return counts[0] < 0;
}
