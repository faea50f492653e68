// ranks: 2
//
// bug_recv_type_overlap_resized.c: a "double every 4 bytes" type made with
// MPI_Type_create_resized (extent 4, size 8) is used with count 3 in a
// receive: element k covers bytes 4k .. 4k+7, so consecutive elements share
// 4 bytes (the type itself has no overlap; the count makes it).
// Breaks MPI-4.1 §5.1.11: a datatype with overlapping entries must not be
// used in a receive (overlap between consecutive elements of a count
// included).
// Expected: recv-type-overlap at the MPI_Recv (rank 1).
//
// MPICH does not check it; the received bytes overwrite each other, which
// this program does not look at.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double out[3] = {1.5, 2.5, 3.5}, in[4] = {0};
    MPI_Datatype squeezed;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Type_create_resized(MPI_DOUBLE, 0, 4, &squeezed); // bug: extent 4 < size 8
    MPI_Type_commit(&squeezed);
    if (rank == 0)
        MPI_Send(out, 3, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(in, 3, squeezed, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "recv-type-overlap"
    MPI_Type_free(&squeezed);

    MPI_Finalize();
    return 0;
}
