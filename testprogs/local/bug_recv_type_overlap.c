// ranks: 2
//
// bug_recv_type_overlap.c: rank 1 receives 6 integers with a vector type of
// 3 blocks of 2 integers whose stride (1) is smaller than the block length
// (2): block i covers elements i and i+1, so consecutive blocks share an
// element.
// Breaks MPI-4.1 §5.1.11: a datatype with overlapping entries must not be
// used in a receive.
// Expected: recv-type-overlap at the MPI_Recv (rank 1).
//
// MPICH does not check it; the received values overwrite each other in an
// undefined order, which this program does not look at.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i, out[6], in[8] = {0};
    MPI_Datatype sliding;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Type_vector(3, 2, 1, MPI_INT, &sliding); // bug: stride 1 < block length 2
    MPI_Type_commit(&sliding);
    if (rank == 0) {
        for (i = 0; i < 6; i++)
            out[i] = i;
        MPI_Send(out, 6, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(in, 1, sliding, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "recv-type-overlap" "buf vector\(3,2,1,INT\) overlaps itself"
    }
    MPI_Type_free(&sliding);

    MPI_Finalize();
    return 0;
}
