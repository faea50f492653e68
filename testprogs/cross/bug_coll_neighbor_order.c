// ranks: 4
//
// bug_coll_neighbor_order.c: a wave solver on a 2x2 periodic Cartesian
// grid sends, per dimension, its displacement (two ints, fixed point) to
// its -1 neighbour and its velocity (a double) to its +1 neighbour with
// one MPI_Neighbor_alltoallw. It lays out its receive slots in the order
// it sends, displacement first, as if the block sent to the -1 neighbour
// arrived from the -1 neighbour.
// Breaks MPI-4.1 §8.6 (Example 8.10) and §6.1: the block sent to the -1
// neighbour is received in that neighbour's slot for its +1 neighbour, so
// slot 2d receives a double and slot 2d+1 two ints; declaring them the
// other way round pairs MPI_DOUBLE with two MPI_INT. In a periodic
// dimension of size 2 both neighbours are the same rank, which hides the
// mix-up on a library that pairs the blocks in sending order (MPICH 4.0).
// Expected: collective-type-mismatch at the MPI_Neighbor_alltoallw on
// every rank.
//
// Natively MPICH and Open MPI complete (8-byte blocks either way).
#include <mpi.h>

int main(int argc, char **argv)
{
    int dims[2] = {2, 2}, periods[2] = {1, 1}, rank, k, step;
    MPI_Comm grid;
    MPI_Datatype fixed;
    union {
        int i[2];
        double d;
    } out[4], in[4];
    const int one[4] = {1, 1, 1, 1};
    MPI_Aint at[4] = {0, 8, 16, 24};

    MPI_Init(&argc, &argv);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Type_contiguous(2, MPI_INT, &fixed);
    MPI_Type_commit(&fixed);
    MPI_Datatype sends[4] = {fixed, MPI_DOUBLE, fixed, MPI_DOUBLE};
    MPI_Datatype recvs[4] = {fixed, MPI_DOUBLE, fixed, MPI_DOUBLE}; // bug: slot 2d holds what the +1 neighbour sent, a double

    double energy = 0;
    for (step = 0; step < 2; step++) {
        for (k = 0; k < 4; k++) {
            if (k % 2 == 0)
                out[k].i[0] = out[k].i[1] = rank + step;
            else
                out[k].d = 0.5 * rank + step;
        }
        MPI_Neighbor_alltoallw(out, one, at, sends, in, one, at, recvs, grid); // want "collective-type-mismatch" "block 0 of recvbuf"
        energy += in[1].d;
    }

    MPI_Type_free(&fixed);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return energy < -1;
}
