// ranks: 4
//
// ok_topology.c: the correct twin of bug_invalid_color.c,
// bug_invalid_dims.c and bug_topology_mismatch.c. MPI_Comm_split with a
// non-negative colour, and MPI_UNDEFINED for the ranks that join nothing
// (MPI-4.1 §7.4.2); a grid computed by MPI_Dims_create from zeroed dims
// and a fixed dimension (§8.5.2), laid out by MPI_Cart_create with a grid
// no larger than the communicator (§8.5.1); the Cartesian queries asked of
// the Cartesian communicator and of an MPI_Cart_sub of it; a graph made by
// MPI_Graph_create asked with the graph queries. mpidbg must report
// nothing.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, errors = 0, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm pair, firsts;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &firsts);
    if ((rank < 2) != (firsts != MPI_COMM_NULL))
        errors++;
    if (firsts != MPI_COMM_NULL)
        MPI_Comm_free(&firsts);
    MPI_Comm_free(&pair);

    int dims[2] = {0, 2}, periods[2] = {1, 0}, coords[2], status, ndims, left, right;
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid, row;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Topo_test(grid, &status);
    MPI_Cartdim_get(grid, &ndims);
    MPI_Cart_coords(grid, rank, 2, coords);
    int back;
    MPI_Cart_rank(grid, coords, &back);
    MPI_Cart_shift(grid, 0, 1, &left, &right);
    int remain[2] = {0, 1};
    MPI_Cart_sub(grid, remain, &row);
    int rdims[1], rper[1], rco[1];
    MPI_Cart_get(row, 1, rdims, rper, rco);
    if (status != MPI_CART || ndims != 2 || back != rank || rdims[0] != dims[1] || rco[0] != coords[1])
        errors++;
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);

    /* a ring as a graph: node i linked to i-1 and i+1 */
    int index[64], edges[128], nn, ne, count, nb[2];
    for (int i = 0, e = 0; i < size; i++) {
        edges[e++] = (i + size - 1) % size;
        edges[e++] = (i + 1) % size;
        index[i] = e;
    }
    MPI_Comm graph;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    MPI_Graphdims_get(graph, &nn, &ne);
    MPI_Graph_neighbors_count(graph, rank, &count);
    MPI_Graph_neighbors(graph, rank, 2, nb);
    if (nn != size || ne != 2 * size || count != 2 || nb[1] != (rank + 1) % size)
        errors++;
    MPI_Comm_free(&graph);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_topology: OK\n");
    MPI_Finalize();
    return total != 0;
}
