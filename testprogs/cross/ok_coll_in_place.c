// ranks: 4
//
// ok_coll_in_place.c: MPI_IN_PLACE where the arguments it replaces are
// ignored (MPI-4.1 §6.2.1): MPI_Allreduce and MPI_Allgather in place on
// every rank; MPI_Reduce, MPI_Gather and MPI_Gatherv in place at the root
// only, whose sendcount and sendtype are then not part of the match (the
// root passes 0 and MPI_DATATYPE_NULL); MPI_Scatter in place at the root
// (its recvcount and recvtype ignored). Every value is checked.
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

#define MAXR 8

int main(int argc, char **argv)
{
    int rank, size, total, i;
    int v[2 * MAXR], counts[MAXR], displs[MAXR];
    double d[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    d[0] = rank;
    d[1] = 1;
    MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(d[0] == size * (size - 1) / 2 && d[1] == size, "rank %d allreduce: %g %g\n", rank, d[0], d[1]);

    for (i = 0; i < 2 * size; i++)
        v[i] = i / 2 == rank ? 7 * rank + i % 2 : -1;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 2, MPI_INT, MPI_COMM_WORLD);
    for (i = 0; i < 2 * size; i++)
        CHECK(v[i] == 7 * (i / 2) + i % 2, "rank %d allgather [%d] = %d\n", rank, i, v[i]);

    long s = rank + 1;
    if (rank == 1) {
        MPI_Reduce(MPI_IN_PLACE, &s, 1, MPI_LONG, MPI_PROD, 1, MPI_COMM_WORLD);
        long f = 1;
        for (i = 1; i <= size; i++)
            f *= i;
        CHECK(s == f, "reduce: %ld\n", s);
    } else {
        MPI_Reduce(&s, NULL, 1, MPI_LONG, MPI_PROD, 1, MPI_COMM_WORLD);
    }

    for (i = 0; i < 2 * size; i++)
        v[i] = -1;
    v[0] = 3 * rank;
    if (rank == 0) {
        MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        for (i = 0; i < size; i++)
            CHECK(v[i] == 3 * i, "gather [%d] = %d\n", i, v[i]);
    } else {
        MPI_Gather(v, 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
    }

    for (i = 0; i < size; i++) {
        counts[i] = i % 2 + 1;
        displs[i] = 2 * i;
    }
    int mine[2] = {5 * rank, 5 * rank + 1};
    if (rank == size - 1) {
        for (i = 0; i < 2 * size; i++)
            v[i] = -1;
        v[2 * rank] = mine[0];
        v[2 * rank + 1] = mine[1];
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, counts, displs, MPI_INT, rank, MPI_COMM_WORLD);
        for (i = 0; i < size; i++)
            CHECK(v[2 * i] == 5 * i && (counts[i] == 1 || v[2 * i + 1] == 5 * i + 1), "gatherv [%d] = %d %d\n", i,
                  v[2 * i], v[2 * i + 1]);
    } else {
        MPI_Gatherv(mine, counts[rank], MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, size - 1, MPI_COMM_WORLD);
    }

    int x = -1;
    if (rank == 2) {
        for (i = 0; i < size; i++)
            v[i] = 40 + i;
        MPI_Scatter(v, 1, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, 2, MPI_COMM_WORLD);
        x = v[rank];
    } else {
        MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, &x, 1, MPI_INT, 2, MPI_COMM_WORLD);
    }
    CHECK(x == 40 + rank, "rank %d scatter: %d\n", rank, x);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_coll_in_place: OK\n");
    MPI_Finalize();
    return total != 0;
}
