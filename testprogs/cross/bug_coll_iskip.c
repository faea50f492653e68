// ranks: 3
// native: hangs
//
// bug_coll_iskip.c: the ranks that own boundary cells add up the flux
// through the boundary with MPI_Iallreduce and update their interior
// while it travels; rank 2 owns no boundary cell, skips the reduction and
// finishes.
// Breaks MPI-4.1 §6.12 and §6.1: every process of the communicator must
// call the collective, nonblocking ones too.
// Expected: deadlock at rank 0's MPI_Wait (ranks 0 and 1 wait in the
// reduction for rank 2, rank 2 in MPI_Finalize for them), and mpidbg ends
// the job. No collective-mismatch: rank 2 calls no other collective in
// its place.
//
// Natively MPICH and Open MPI hang.
#include <mpi.h>

#define N 128

int main(int argc, char **argv)
{
    int rank, size, i, nboundary;
    double u[N], flux = 0, total = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (i = 0; i < N; i++)
        u[i] = 1.0 / (1 + i + rank);
    nboundary = rank == size - 1 ? 0 : 4;
    for (i = 0; i < nboundary; i++)
        flux += u[i] - u[N - 1 - i];
    if (nboundary > 0) { // bug: every rank must take part in the reduction
        MPI_Iallreduce(&flux, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
        for (i = 1; i < N - 1; i++)
            u[i] = 0.5 * (u[i - 1] + u[i + 1]);
        MPI_Wait(&r, MPI_STATUS_IGNORE); // want "deadlock"
    }

    MPI_Finalize();
    return u[1] < 0 || total < -1e9;
}
