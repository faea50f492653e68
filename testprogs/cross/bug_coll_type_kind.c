// ranks: 3
//
// bug_coll_type_kind.c: rank 0 reads a run's schedule (the times at which
// to write output, in seconds) and broadcasts it as 4 doubles; the other
// ranks receive it with MPI_LONG, copied from the broadcast of the step
// count just above. Both are 8 bytes, so MPI moves the bytes and says
// nothing: the workers see the bits of doubles as longs and never write
// their output.
// Breaks MPI-4.1 §6.1 (and §3.3.1): the type signatures of the send and
// the receive must match, basic type for basic type.
// Expected: collective-type-mismatch at rank 0's MPI_Bcast of the
// schedule (the others' call as related), naming MPI_DOUBLE on rank 0
// and MPI_LONG on the others.
#include <mpi.h>
#include <stdio.h>

struct schedule {
    long nsteps;
    double out_at[4]; /* seconds of simulated time */
};

int main(int argc, char **argv)
{
    int rank;
    struct schedule s = {0, {0}};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        s.nsteps = 100;
        for (int i = 0; i < 4; i++)
            s.out_at[i] = 0.25 * (i + 1);
    }
    MPI_Bcast(&s.nsteps, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Bcast(s.out_at, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD); // want "collective-type-mismatch" "rank 0 MPI_Bcast with count 4 of MPI_DOUBLE; ranks 1,2 MPI_Bcast with count 4 of MPI_LONG"
    else
        MPI_Bcast(s.out_at, 4, MPI_LONG, 0, MPI_COMM_WORLD);

    int written = 0;
    double dt = 1.0 / (double)s.nsteps;
    for (long step = 1; step <= s.nsteps; step++)
        for (int i = 0; i < 4; i++)
            if (step * dt > s.out_at[i] - dt / 2 && step * dt <= s.out_at[i] + dt / 2)
                written++;
    int total = 0;
    MPI_Reduce(&written, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
