// ranks: 3
//
// bug_coll_iallreduce_count.c: the ranks sum a histogram of 8 bins with
// MPI_Iallreduce while they prepare the next step; rank 0 was built with
// a histogram of 8 bins, ranks 1 and 2 with the old 4.
// Breaks MPI-4.1 §6.1 and §6.9.6 (MPI_ALLREDUCE): count and datatype must
// be the same on every process.
// Expected: collective-type-mismatch at the MPI_Iallreduce (every rank),
// found when the request is waited for. What MPI does next differs: MPICH
// completes the reduction, Open MPI fails it with MPI_ERR_TRUNCATE
// (MPI_ERRORS_RETURN: the program goes on) or hangs in it; mpidbg then
// ends the job after the deadlock timeout, the ranks waiting in the call
// that reported the mismatch.
//
// Natively MPICH completes with a wrong histogram on rank 0; Open MPI
// fails or hangs.
#include <mpi.h>

#define NBINS 8

int main(int argc, char **argv)
{
    int rank, i, nbins;
    double hist[NBINS], sum[NBINS], next[64];
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    nbins = rank == 0 ? NBINS : NBINS / 2; // bug: two builds of the program
    for (i = 0; i < NBINS; i++)
        hist[i] = sum[i] = i + rank;
    MPI_Iallreduce(hist, sum, nbins, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r); // want "collective-type-mismatch" "rank 0 nonblocking MPI_Iallreduce with count 8 of MPI_DOUBLE; ranks 1,2 nonblocking MPI_Iallreduce with count 4 of MPI_DOUBLE"
    for (i = 0; i < 64; i++)
        next[i] = 0.5 * i;
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    MPI_Finalize();
    return sum[0] < 0 || next[3] < 0;
}
