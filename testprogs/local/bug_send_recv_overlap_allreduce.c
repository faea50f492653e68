// ranks: 2
//
// bug_send_recv_overlap_allreduce.c: an "in place" global sum written by
// passing the same array as send and receive buffer instead of
// MPI_IN_PLACE.
// Breaks MPI-4.1 §2.3 (an OUT argument must not alias another argument)
// and §6.9.6 (use MPI_IN_PLACE for an in-place reduction).
// Expected: send-recv-overlap at the MPI_Allreduce (both ranks).
//
// MPICH rejects the call on every rank (MPI_ERR_BUFFER, "Buffers must not
// be aliased"; the default handler would abort): MPI_ERRORS_RETURN keeps
// the job going.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double v[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    v[0] = rank;
    v[1] = 2.0 * rank;
    MPI_Allreduce(v, v, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); // want "send-recv-overlap"

    MPI_Finalize();
    return 0;
}
