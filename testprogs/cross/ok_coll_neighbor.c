// ranks: 4
//
// ok_coll_neighbor.c: the correct twin of bug_coll_neighbor_type.c and
// bug_coll_ineighbor_count.c. Neighbourhood collectives (MPI-4.1 §8.6)
// whose blocks pair along every edge, on each kind of topology:
// - a 2x2 Cartesian grid's halo exchange with MPI_Neighbor_alltoallw,
//   rows as doubles and columns as strided vectors, sent from and
//   received into the same tile (other bytes), without and with periodic
//   dimensions: in a periodic dimension of size 2 both neighbours are the
//   same rank (MPICH 4.0 then delivers the two blocks of a dimension
//   swapped, MPI-4.1 Example 8.10 says otherwise, so only the rank they
//   come from is checked there);
// - a non-periodic line of 4 with MPI_Neighbor_alltoall, whose ends have
//   MPI_PROC_NULL neighbours;
// - a distributed graph with two edges from each rank to the next, the
//   first carrying 1 int and the second 3, exchanged with
//   MPI_Ineighbor_alltoallv (repeated edges pair in order);
// - MPI_Ineighbor_allgatherv where each rank sends 2(r+1) MPI_INT and
//   receivers take r+1 contiguous(2, MPI_INT) (equal signatures);
// - MPI_Neighbor_allgather on an MPI_Graph_create star;
// - a 2x2 periodic grid where each rank sends, per dimension, two ints to
//   its -1 neighbour and a double to its +1 neighbour, so receives the
//   double in its first slot and the ints in its second (MPI-4.1 Example
//   8.10: the block sent to the -1 neighbour is received from the +1
//   one), blocking and nonblocking, though both neighbours of a
//   dimension are the same rank.
// Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

#define N 6

static void halo(int periodic)
{
    int rank, dims[2] = {2, 2}, periods[2] = {periodic, periodic}, i, j;
    double tile[N + 2][N + 2];
    MPI_Comm grid;
    MPI_Datatype row, col;

    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Type_contiguous(N, MPI_DOUBLE, &row);
    MPI_Type_vector(N, 1, N + 2, MPI_DOUBLE, &col);
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);
    for (i = 0; i < N + 2; i++)
        for (j = 0; j < N + 2; j++)
            tile[i][j] = i == 0 || j == 0 || i == N + 1 || j == N + 1 ? -1 : 100 * rank + 10 * i + j;

    const int one[4] = {1, 1, 1, 1};
    MPI_Aint sd[4], rd[4];
    MPI_Datatype types[4] = {row, row, col, col};
    sd[0] = (MPI_Aint)sizeof(double) * (1 * (N + 2) + 1);
    sd[1] = (MPI_Aint)sizeof(double) * (N * (N + 2) + 1);
    sd[2] = (MPI_Aint)sizeof(double) * (1 * (N + 2) + 1);
    sd[3] = (MPI_Aint)sizeof(double) * (1 * (N + 2) + N);
    rd[0] = (MPI_Aint)sizeof(double) * 1;
    rd[1] = (MPI_Aint)sizeof(double) * ((N + 1) * (N + 2) + 1);
    rd[2] = (MPI_Aint)sizeof(double) * (N + 2);
    rd[3] = (MPI_Aint)sizeof(double) * ((N + 2) + N + 1);
    MPI_Neighbor_alltoallw(tile, one, sd, types, tile, one, rd, types, grid);

    // the top halo row comes from the -1 neighbour in dimension 0: its last inner row
    int up, down, left, right;
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    if (periodic) {
        CHECK((int)tile[0][1] / 100 == up && (int)tile[N + 1][2] / 100 == down, "rank %d: rows from %g %g\n", rank, tile[0][1], tile[N + 1][2]);
        CHECK((int)tile[3][0] / 100 == left && (int)tile[4][N + 1] / 100 == right, "rank %d: columns from %g %g\n", rank, tile[3][0], tile[4][N + 1]);
    } else {
        CHECK(tile[0][1] == (up == MPI_PROC_NULL ? -1 : 100 * up + 10 * N + 1), "rank %d: top halo %g\n", rank, tile[0][1]);
        CHECK(tile[N + 1][2] == (down == MPI_PROC_NULL ? -1 : 100 * down + 10 * 1 + 2), "rank %d: bottom halo %g\n", rank, tile[N + 1][2]);
        CHECK(tile[3][0] == (left == MPI_PROC_NULL ? -1 : 100 * left + 10 * 3 + N), "rank %d: left halo %g\n", rank, tile[3][0]);
        CHECK(tile[4][N + 1] == (right == MPI_PROC_NULL ? -1 : 100 * right + 10 * 4 + 1), "rank %d: right halo %g\n", rank, tile[4][N + 1]);
    }

    MPI_Type_free(&row);
    MPI_Type_free(&col);
    MPI_Comm_free(&grid);
}

static void line(void)
{
    int rank, size, dims[1] = {0}, periods[1] = {0}, prev, next;
    MPI_Comm l;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &l);
    MPI_Comm_rank(l, &rank);
    MPI_Cart_shift(l, 0, 1, &prev, &next);
    int out[2] = {10 * rank, 10 * rank + 1}, in[2] = {-1, -1};
    MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, l);
    CHECK(in[0] == (prev == MPI_PROC_NULL ? -1 : 10 * prev + 1), "rank %d: from prev %d\n", rank, in[0]);
    CHECK(in[1] == (next == MPI_PROC_NULL ? -1 : 10 * next), "rank %d: from next %d\n", rank, in[1]);
    MPI_Comm_free(&l);
}

static void twice(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int srcs[2] = {prev, prev}, dsts[2] = {next, next};
    MPI_Comm g;
    int w[2] = {1, 1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, w, 2, dsts, w, MPI_INFO_NULL, 0, &g);

    int out[4] = {rank, 100 + rank, 200 + rank, 300 + rank}, in[4] = {-1, -1, -1, -1};
    int sc[2] = {1, 3}, sdp[2] = {0, 1}, rc[2] = {1, 3}, rdp[2] = {0, 1};
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Ineighbor_alltoallv(out, sc, sdp, MPI_INT, in, rc, rdp, MPI_INT, g, &r[0]);

    // each rank r sends 2(r+1) ints; receivers take r+1 pairs
    int mine[8], all[2 * 8 * 2];
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (int i = 0; i < 2 * (rank + 1); i++)
        mine[i] = 1000 * rank + i;
    int gc[2] = {prev + 1, prev + 1}, gd[2] = {0, prev + 1};
    MPI_Ineighbor_allgatherv(mine, 2 * (rank + 1), MPI_INT, all, gc, gd, pair, g, &r[1]);
    MPI_Waitall(2, r, st);

    CHECK(in[0] == prev && in[1] == 100 + prev && in[3] == 300 + prev, "rank %d: edges %d %d %d\n", rank, in[0], in[1], in[3]);
    CHECK(all[0] == 1000 * prev && all[2 * (prev + 1)] == 1000 * prev, "rank %d: gathered %d %d\n", rank, all[0], all[2 * (prev + 1)]);
    MPI_Type_free(&pair);
    MPI_Comm_free(&g);
}

static void star(void)
{
    // rank 0 is the hub, joined to every other rank
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int index[8], edges[16], ne = 0;
    for (int i = 0; i < size; i++) {
        if (i == 0)
            for (int j = 1; j < size; j++)
                edges[ne++] = j;
        else
            edges[ne++] = 0;
        index[i] = ne;
    }
    MPI_Comm s;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &s);
    MPI_Comm_rank(s, &rank);
    int got[8] = {-1, -1, -1, -1, -1, -1, -1, -1}, v = 7 * rank;
    MPI_Neighbor_allgather(&v, 1, MPI_INT, got, 1, MPI_INT, s);
    if (rank == 0)
        CHECK(got[0] == 7 && got[size - 2] == 7 * (size - 1), "hub: %d %d\n", got[0], got[size - 2]);
    else
        CHECK(got[0] == 0, "rank %d: from the hub %d\n", rank, got[0]);
    MPI_Comm_free(&s);
}

static void directions(void)
{
    int dims[2] = {2, 2}, periods[2] = {1, 1}, rank;
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    // blocks of 8 bytes: to -1 two ints, to +1 a double
    union {
        int i[2];
        double d;
    } out[4], in[4];
    const int one[4] = {1, 1, 1, 1};
    MPI_Aint d8[4] = {0, 8, 16, 24};
    MPI_Datatype st[4] = {two, MPI_DOUBLE, two, MPI_DOUBLE}, rt[4] = {MPI_DOUBLE, two, MPI_DOUBLE, two};
    for (int k = 0; k < 4; k++) {
        if (k % 2 == 0)
            out[k].i[0] = out[k].i[1] = rank;
        else
            out[k].d = rank;
    }
    MPI_Neighbor_alltoallw(out, one, d8, st, in, one, d8, rt, grid);
    MPI_Request r;
    MPI_Ineighbor_alltoallw(out, one, d8, st, in, one, d8, rt, grid, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Type_free(&two);
    MPI_Comm_free(&grid);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    halo(0);
    halo(1);
    line();
    twice();
    star();
    directions();
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && all == 0)
        printf("ok_coll_neighbor: OK\n");
    MPI_Finalize();
    return all != 0;
}
