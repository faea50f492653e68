// ranks: 3
// native: hangs
//
// bug_coll_test_poll.c: as bug_coll_iskip.c, but the ranks that own
// boundary cells drive the reduction with MPI_Test in a loop after their
// interior update, doing nothing else until it completes; rank 2 owns no
// boundary cell, skips the reduction and finishes. A rank polling the
// same request without other MPI calls, almost all of its time inside
// MPI_Test, is blocked on it as in MPI_Wait.
// Breaks MPI-4.1 §6.12 and §6.1: every process of the communicator must
// call the collective.
// Expected: deadlock at rank 0's MPI_Test, and mpidbg ends the job.
//
// Natively MPICH and Open MPI hang (ranks 0 and 1 poll for ever).
#include <mpi.h>

#define N 128

int main(int argc, char **argv)
{
    int rank, size, i, done = 0, polls = 0, nboundary;
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
        while (!done) {
            MPI_Test(&r, &done, MPI_STATUS_IGNORE); // want "deadlock"
            polls++;
        }
    }

    MPI_Finalize();
    return u[1] < 0 || total < -1e9 || polls < 0;
}
