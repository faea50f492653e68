// ranks: 3
//
// ok_in_place_more.c: the less common MPI_IN_PLACE forms, all legal:
// MPI_Alltoall (sendbuf MPI_IN_PLACE, sendcount/sendtype ignored),
// MPI_Scan and MPI_Exscan, MPI_Reduce_scatter_block, MPI_Allgatherv, and
// MPI_Iallreduce. Checks every result.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define MAXP 8

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, i, total, a[MAXP], s, e, rs[MAXP], counts[MAXP], displs[MAXP], g[MAXP];
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP)
        MPI_Abort(MPI_COMM_WORLD, 2);

    for (i = 0; i < size; i++)
        a[i] = 10 * rank + i;
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 1, MPI_INT, MPI_COMM_WORLD);
    for (i = 0; i < size; i++)
        CHECK(a[i] == 10 * i + rank, "rank %d: alltoall a[%d] = %d\n", rank, i, a[i]);

    s = rank + 1;
    MPI_Scan(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(s == (rank + 1) * (rank + 2) / 2, "rank %d: scan %d\n", rank, s);
    e = rank + 1;
    MPI_Exscan(MPI_IN_PLACE, &e, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0) // undefined on rank 0
        CHECK(e == rank * (rank + 1) / 2, "rank %d: exscan %d\n", rank, e);

    for (i = 0; i < size; i++)
        rs[i] = i + rank;
    MPI_Reduce_scatter_block(MPI_IN_PLACE, rs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rs[0] == size * rank + size * (size - 1) / 2, "rank %d: reduce_scatter_block %d\n", rank, rs[0]);

    for (i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = size - 1 - i; // reversed places
        g[i] = -1;
    }
    g[displs[rank]] = 100 + rank;
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (i = 0; i < size; i++)
        CHECK(g[size - 1 - i] == 100 + i, "rank %d: allgatherv slot %d\n", rank, i);

    s = rank;
    MPI_Iallreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(s == size - 1, "rank %d: iallreduce max %d\n", rank, s);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_in_place_more: OK\n");
    MPI_Finalize();
    return total != 0;
}
