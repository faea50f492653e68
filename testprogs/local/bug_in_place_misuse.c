// ranks: 2
//
// bug_in_place_misuse.c: an in-place global sum with the marker in the
// wrong argument: MPI_IN_PLACE is passed as the receive buffer instead of
// the send buffer.
// Breaks MPI-4.1 §6.9.6: for MPI_ALLREDUCE, MPI_IN_PLACE is allowed only as
// sendbuf.
// Expected: in-place-misuse at the MPI_Allreduce (both ranks).
//
// MPICH rejects the call on every rank with MPI_ERR_BUFFER ("recvbuf cannot
// be MPI_IN_PLACE"; the default handler would abort): MPI_ERRORS_RETURN
// keeps the job alive. The correct form is in ok_in_place.c.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i;
    double v[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    for (i = 0; i < 3; i++)
        v[i] = rank + i;
    MPI_Allreduce(v, MPI_IN_PLACE, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); // want "in-place-misuse"

    MPI_Finalize();
    return 0;
}
