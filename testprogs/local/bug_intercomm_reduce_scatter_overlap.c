// ranks: 4
//
// bug_intercomm_reduce_scatter_overlap.c: three ocean ranks and one
// atmosphere rank joined by an intercommunicator reduce their flux
// vectors into each other's pieces with MPI_Reduce_scatter_block. Each
// ocean rank supplies 3 × 2 elements (its own group's size times
// recvcount) but puts its 2-element result at element 4 of the same
// array: inside the send vector it is still handing to MPI.
// Breaks MPI-4.1 §6.10.1 ("n*recvcount" elements, n the size of the local
// group) with §2.6.3 / §6.1: a send buffer and a receive buffer of one
// call must not overlap (MPI_IN_PLACE is the way to share them).
// Expected: send-recv-overlap at the call, on each ocean rank.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int atmos = wrank == wsize - 1;
    MPI_Comm group, coupler;
    MPI_Comm_split(MPI_COMM_WORLD, atmos, wrank, &group);
    MPI_Intercomm_create(group, 0, MPI_COMM_WORLD, atmos ? 0 : wsize - 1, 7, &coupler);
    int lsize;
    MPI_Comm_size(group, &lsize);
    if (atmos) {
        int flux[6] = {0, 1, 2, 3, 4, 5}, result[6];
        MPI_Reduce_scatter_block(flux, result, 6, MPI_INT, MPI_SUM, coupler);
    } else {
        int flux[6] = {0, 1, 2, 3, 4, 5};
        MPI_Reduce_scatter_block(flux, flux + 4, 6 / lsize, MPI_INT, MPI_SUM, coupler); // want "send-recv-overlap"
    }
    MPI_Comm_free(&coupler);
    MPI_Comm_free(&group);
    MPI_Finalize();
    return 0;
}
