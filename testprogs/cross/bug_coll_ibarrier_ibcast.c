// ranks: 4
// native: hangs
//
// bug_coll_ibarrier_ibcast.c: a master/worker step. The workers post a
// nonblocking broadcast of the next step's parameters and integrate their
// own cells while it travels. The master's parameters are not ready yet:
// it first tells the workers that the step has started with MPI_Ibarrier,
// reads the parameters, and broadcasts them after the barrier. The first
// nonblocking collective on MPI_COMM_WORLD is MPI_Ibarrier on rank 0 and
// MPI_Ibcast on ranks 1-3.
// Breaks MPI-4.1 §6.12: nonblocking collectives match in the order they
// are called on a communicator, and the n-th must be the same operation
// on every process (§6.1).
// Expected: collective-mismatch at the MPI_Ibarrier (rank 0), with the
// MPI_Ibcast (ranks 1-3) as a related line, found when the requests are
// waited for;
// deadlock at rank 0's MPI_Wait, where each side waits in a collective
// the other never joins, and mpidbg ends the job.
//
// Natively MPICH and Open MPI hang in the MPI_Wait calls.
#include <mpi.h>

#define NCELLS 64

int main(int argc, char **argv)
{
    int rank, size, i;
    double params[3] = {0, 0, 0}, cells[NCELLS], sum = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (i = 0; i < NCELLS; i++)
        cells[i] = rank + 0.01 * i;
    if (rank == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &r); // want "collective-mismatch"
        params[0] = 0.25; // dt
        params[1] = 100;  // steps
        params[2] = 1e-6; // tolerance
        MPI_Wait(&r, MPI_STATUS_IGNORE); // want "deadlock"
        MPI_Bcast(params, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    } else {
        MPI_Ibcast(params, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r); // related "collective-mismatch"
        for (i = 0; i < NCELLS; i++)
            sum += 0.5 * cells[i];
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (i = 0; i < NCELLS; i++)
        cells[i] += params[0] * sum;

    MPI_Finalize();
    return cells[NCELLS - 1] < 0;
}
