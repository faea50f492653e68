// ranks: 2
// needs: debug-registers
//
// bug_iallreduce_stack_read.c: a helper starts a global sum of a local
// value with MPI_Iallreduce into a variable on its stack, overlaps it
// with some work, and uses the result before MPI_Wait, as if the
// reduction had completed when it started.
// Breaks MPI-4.1 §6.12 (and §3.7.2): the receive buffer of a nonblocking
// collective must not be accessed until the operation completes.
// Expected: recv-buffer-access at the read (each rank), with the
// MPI_Iallreduce as the related location.
//
// The result variable lies in the helper's frame, on the page its own
// calls write their frames to: mpidbg watches it with a debug register
// (docs/races.md, "Stack buffers"). The ranks enter a barrier only after
// the read, so the reduction cannot have finished before it (MPICH and
// Open MPI progress it inside MPI calls). Natively the read sees the
// initial value.
#include <mpi.h>
#include <stdio.h>

static double residual(int rank)
{
    double local = 1.0 + rank, global = 0, damping = 1, scaled;
    MPI_Request r;

    MPI_Iallreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r); // related "recv-buffer-access"
    for (int i = 0; i < 1000; i++)
        damping *= 0.999;
    scaled = global * damping; // want "recv-buffer-access" "load from the receive buffer \(1 x MPI_DOUBLE\) at offset 0, element \(DOUBLE\), before the receive completed"
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    return scaled + global;
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double res = residual(rank);
    MPI_Finalize();
    return res < 0; /* never: keeps the result */
}
