// ranks: 4
//
// bug_coll_ineighbor_count.c: a particle code hands the particles that
// left each rank's slab to its neighbours on a ring (a distributed graph,
// one edge to each side): the counts first, with MPI_Neighbor_alltoall,
// then the particles with MPI_Ineighbor_alltoallv while it sorts the ones
// that stay. Rank 1 sizes what it expects from its left neighbour with
// the count it sends to its right one instead of the count it received.
// Breaks MPI-4.1 §8.6 (MPI_NEIGHBOR_ALLTOALLV) and §6.1: the amount a
// process sends along an edge must equal what its neighbour receives
// along it; a collective's receive may not be larger or smaller than the
// block sent.
// Expected: collective-type-mismatch at the MPI_Ineighbor_alltoallv on
// rank 1 (rank 0 sends 3 doubles where rank 1 receives 5), when the
// request completes.
//
// Natively MPICH and Open MPI complete: the receive is larger than the
// message, so rank 1 reads two doubles that nobody sent.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, i;
    MPI_Comm ring;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int nbrs[2] = {left, right}, w[2] = {1, 1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nbrs, w, 2, nbrs, w, MPI_INFO_NULL, 0, &ring);

    // rank r sends r+1 particles left and 2r+3 right
    int leave[2] = {rank + 1, 2 * rank + 3}, arrive[2];
    MPI_Neighbor_alltoall(leave, 1, MPI_INT, arrive, 1, MPI_INT, ring);
    if (rank == 1)
        arrive[0] = leave[1]; // bug: its own count to the right, 5, where rank 0 sends 3
    double out[32], in[32];
    int sdispl[2] = {0, 16}, rdispl[2] = {0, 16};
    for (i = 0; i < 32; i++)
        out[i] = rank + i / 100.0;
    MPI_Request r;
    MPI_Ineighbor_alltoallv(out, leave, sdispl, MPI_DOUBLE, in, arrive, rdispl, MPI_DOUBLE, ring, &r); // want "collective-type-mismatch" "sends 3 of MPI_DOUBLE to this rank along an edge of the topology, where this rank receives 5 of MPI_DOUBLE \(block 0 of recvbuf\)"
    double kept = 0;
    for (i = 0; i < 8; i++)
        kept += out[i];
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    MPI_Comm_free(&ring);
    MPI_Finalize();
    return kept < 0;
}
