// ranks: 4
//
// bug_coll_neighbor_type.c: a 2-D heat stencil on a 2x2 periodic
// Cartesian grid exchanges its four halo rows and columns with one
// MPI_Neighbor_alltoallw: to each neighbour it sends the edge of its tile
// (a row as MPI_DOUBLE, a column as a strided vector) and receives the
// neighbour's into its halo. Rank 3 was built with single-precision halos
// for its x neighbours: it receives the column blocks as 2*N MPI_FLOAT,
// the same bytes as the N doubles its neighbours send.
// Breaks MPI-4.1 §8.6 (MPI_NEIGHBOR_ALLTOALLW) and §6.1: the type
// signature of the block a process sends along an edge must equal that of
// the block its neighbour receives along it (DOUBLE against FLOAT).
// Expected: collective-type-mismatch at the MPI_Neighbor_alltoallw on
// rank 3, which finds both of its x blocks unpaired (in a periodic
// dimension of size 2 both are from the same rank).
//
// Natively MPICH and Open MPI complete (same sizes), and rank 3's halo
// holds the doubles' bytes read as floats.
#include <mpi.h>
#include <stdio.h>

#define N 8

int main(int argc, char **argv)
{
    int rank, dims[2] = {2, 2}, periods[2] = {1, 1}, i, j, it;
    double tile[N + 2][N + 2];
    MPI_Comm grid;
    MPI_Datatype row, col, halfcol;

    MPI_Init(&argc, &argv);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Type_contiguous(N, MPI_DOUBLE, &row);
    MPI_Type_vector(N, 1, N + 2, MPI_DOUBLE, &col);
    MPI_Type_vector(N, 2, 2 * (N + 2), MPI_FLOAT, &halfcol); // the same bytes as col, as floats
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);
    MPI_Type_commit(&halfcol);
    for (i = 0; i < N + 2; i++)
        for (j = 0; j < N + 2; j++)
            tile[i][j] = rank;

    // neighbours in the order of MPI-4.1 §8.6: dimension 0 (-1, +1), dimension 1 (-1, +1)
    const int one[4] = {1, 1, 1, 1};
    MPI_Aint sdispl[4], rdispl[4];
    MPI_Datatype stypes[4] = {row, row, col, col}, rtypes[4] = {row, row, col, col};
    if (rank == 3)
        rtypes[2] = rtypes[3] = halfcol; // bug: the neighbours send doubles
    sdispl[0] = (MPI_Aint)sizeof(double) * (1 * (N + 2) + 1); // first inner row
    sdispl[1] = (MPI_Aint)sizeof(double) * (N * (N + 2) + 1); // last inner row
    sdispl[2] = (MPI_Aint)sizeof(double) * (1 * (N + 2) + 1); // first inner column
    sdispl[3] = (MPI_Aint)sizeof(double) * (1 * (N + 2) + N); // last inner column
    rdispl[0] = (MPI_Aint)sizeof(double) * 1;                      // top halo row
    rdispl[1] = (MPI_Aint)sizeof(double) * ((N + 1) * (N + 2) + 1); // bottom halo row
    rdispl[2] = (MPI_Aint)sizeof(double) * (N + 2);                 // left halo column
    rdispl[3] = (MPI_Aint)sizeof(double) * ((N + 2) + N + 1);       // right halo column

    double sum = 0;
    for (it = 0; it < 3; it++) {
        static double next[N + 2][N + 2];
        MPI_Neighbor_alltoallw(tile, one, sdispl, stypes, tile, one, rdispl, rtypes, grid); // want "collective-type-mismatch" "along an edge of the topology"
        for (i = 1; i <= N; i++)
            for (j = 1; j <= N; j++)
                next[i][j] = 0.25 * (tile[i - 1][j] + tile[i + 1][j] + tile[i][j - 1] + tile[i][j + 1]);
        for (i = 1; i <= N; i++)
            for (j = 1; j <= N; j++)
                tile[i][j] = next[i][j];
    }
    for (i = 1; i <= N; i++)
        sum += tile[i][1];

    MPI_Type_free(&row);
    MPI_Type_free(&col);
    MPI_Type_free(&halfcol);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return sum < -1;
}
