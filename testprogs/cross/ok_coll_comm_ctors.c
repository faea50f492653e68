// ranks: 4
//
// ok_coll_comm_ctors.c: the correct twin of bug_coll_comm_dup_skipped.c,
// with every collective communicator constructor between the other
// collectives on the same communicator: a library's MPI_Comm_dup and
// MPI_Comm_dup_with_info, a row/column MPI_Comm_split, MPI_Comm_split_type
// by shared memory, MPI_Comm_create of the even ranks (the odd ones get
// MPI_COMM_NULL and call nothing on it), a periodic 2x2 MPI_Cart_create
// and its MPI_Cart_sub rows, an MPI_Graph_create ring and an
// MPI_Dist_graph_create_adjacent ring, with a reduction or broadcast on
// each new communicator and MPI_Barrier on the old one between them.
// Follows MPI-4.1 §7.4 and §8.5: every process of the old communicator
// calls each constructor, in the same order as its other collectives
// (§6.1). Every value is checked.
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

static int sum_over(MPI_Comm comm, int v)
{
    int total = 0;
    MPI_Allreduce(&v, &total, 1, MPI_INT, MPI_SUM, comm);
    return total;
}

int main(int argc, char **argv)
{
    int rank, size, n;
    MPI_Comm dup, dupi, row, node, even, cart, cart_row, ring, dring;
    MPI_Group world_g, even_g;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int all = size * (size - 1) / 2;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(sum_over(dup, rank) == all, "rank %d: dup sum\n", rank);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Comm_dup_with_info(dup, info, &dupi);
    MPI_Info_free(&info);
    CHECK(sum_over(dupi, 1) == size, "rank %d: dup_with_info size\n", rank);

    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &row);
    CHECK(sum_over(row, 1) == 2, "rank %d: row size\n", rank);
    MPI_Bcast(&n, 0, MPI_INT, 0, MPI_COMM_WORLD);

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &n);
    CHECK(sum_over(node, 1) == n, "rank %d: node size\n", rank);

    MPI_Comm_group(MPI_COMM_WORLD, &world_g);
    int evens[] = {0, 2};
    MPI_Group_incl(world_g, 2, evens, &even_g);
    MPI_Comm_create(MPI_COMM_WORLD, even_g, &even);
    if (rank % 2 == 0)
        CHECK(sum_over(even, rank) == 2, "rank %d: even sum\n", rank);
    else
        CHECK(even == MPI_COMM_NULL, "rank %d: odd rank in the even communicator\n", rank);

    int dims[2] = {2, 2}, periods[2] = {1, 1}, keep[2] = {0, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, keep, &cart_row);
    CHECK(sum_over(cart_row, 1) == 2, "rank %d: cartesian row size\n", rank);
    MPI_Barrier(cart);

    int index[4] = {2, 4, 6, 8}, edges[8] = {1, 3, 0, 2, 1, 3, 2, 0};
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &ring);
    CHECK(sum_over(ring, 1) == 4, "rank %d: graph size\n", rank);

    int left = (rank + size - 1) % size, right = (rank + 1) % size, srcs[2] = {left, right}, dsts[2] = {left, right}, w[2] = {1, 1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, w, 2, dsts, w, MPI_INFO_NULL, 0, &dring);
    int got[2] = {-1, -1};
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, dring);
    CHECK(got[0] == left && got[1] == right, "rank %d: neighbours %d %d\n", rank, got[0], got[1]);

    MPI_Comm_free(&dring);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&cart_row);
    MPI_Comm_free(&cart);
    if (even != MPI_COMM_NULL)
        MPI_Comm_free(&even);
    MPI_Group_free(&even_g);
    MPI_Group_free(&world_g);
    MPI_Comm_free(&node);
    MPI_Comm_free(&row);
    MPI_Comm_free(&dupi);
    MPI_Comm_free(&dup);
    int bad = 0;
    MPI_Allreduce(&errors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad ? "ok_coll_comm_ctors: %d errors\n" : "ok_coll_comm_ctors: OK\n", bad);
    MPI_Finalize();
    return bad != 0;
}
