// ranks: 5
//
// ok_coll_v_variants.c: the v and w variants with counts and types that
// agree pairwise (MPI-4.1 §6.5-§6.8, §6.10), on 5 ranks (oversubscribed):
// MPI_Gatherv and MPI_Scatterv with a different count per rank,
// MPI_Allgatherv, MPI_Alltoallv with counts (i+j)%3+1, MPI_Alltoallw
// sending ints to even ranks and doubles to odd ones (received with
// equal signatures built differently: contiguous types against counts),
// MPI_Reduce_scatter with per-rank counts. Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

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
    int rank, size, total, i, j, k;
    int counts[MAXR], displs[MAXR], rcounts[MAXR], rdispls[MAXR];
    int mine[MAXR], all[MAXR * MAXR];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    // Gatherv / Allgatherv: rank i contributes i+1 ints
    for (i = 0, k = 0; i < size; i++) {
        counts[i] = i + 1;
        displs[i] = k;
        k += i + 1;
    }
    for (j = 0; j <= rank; j++)
        mine[j] = 10 * rank + j;
    memset(all, 0xff, sizeof all);
    MPI_Gatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (i = 0; i < size; i++)
            for (j = 0; j <= i; j++)
                CHECK(all[displs[i] + j] == 10 * i + j, "gatherv [%d][%d] = %d\n", i, j, all[displs[i] + j]);
    memset(all, 0xff, sizeof all);
    MPI_Allgatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (i = 0; i < size; i++)
        CHECK(all[displs[i] + i] == 11 * i, "rank %d allgatherv [%d] = %d\n", rank, i, all[displs[i] + i]);

    // Scatterv: the root sends rank i its i+1 values
    if (rank == 2)
        for (i = 0; i < k; i++)
            all[i] = 1000 + i;
    memset(mine, 0, sizeof mine);
    MPI_Scatterv(all, counts, displs, MPI_INT, mine, rank + 1, MPI_INT, 2, MPI_COMM_WORLD);
    CHECK(mine[rank] == 1000 + displs[rank] + rank, "rank %d scatterv: %d\n", rank, mine[rank]);

    // Alltoallv: rank i sends (i+j)%3+1 ints to rank j
    int sbuf[MAXR * 3], rbuf[MAXR * 3];
    for (j = 0; j < size; j++) {
        counts[j] = (rank + j) % 3 + 1;
        displs[j] = 3 * j;
        rcounts[j] = (j + rank) % 3 + 1;
        rdispls[j] = 3 * j;
        for (i = 0; i < 3; i++)
            sbuf[3 * j + i] = 100 * rank + 10 * j + i;
    }
    MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    for (j = 0; j < size; j++)
        for (i = 0; i < rcounts[j]; i++)
            CHECK(rbuf[3 * j + i] == 100 * j + 10 * rank + i, "rank %d alltoallv from %d [%d] = %d\n", rank, j,
                  i, rbuf[3 * j + i]);

    // Alltoallw: two ints to even ranks, one double to odd ranks; even
    // receivers take each block as one contiguous(2, INT)
    struct {
        int i[2];
        double d;
    } sw[MAXR], rw[MAXR];
    int wsc[MAXR], wrc[MAXR], wsd[MAXR], wrd[MAXR];
    MPI_Datatype wst[MAXR], wrt[MAXR], two_ints;
    MPI_Type_contiguous(2, MPI_INT, &two_ints);
    MPI_Type_commit(&two_ints);
    for (j = 0; j < size; j++) {
        sw[j].i[0] = rank;
        sw[j].i[1] = j;
        sw[j].d = rank + 0.5;
        if (j % 2 == 0) {
            wsc[j] = 2;
            wst[j] = MPI_INT;
            wsd[j] = (int)((char *)sw[j].i - (char *)sw);
        } else {
            wsc[j] = 1;
            wst[j] = MPI_DOUBLE;
            wsd[j] = (int)((char *)&sw[j].d - (char *)sw);
        }
        if (rank % 2 == 0) {
            wrc[j] = 1;
            wrt[j] = two_ints;
            wrd[j] = (int)((char *)rw[j].i - (char *)rw);
        } else {
            wrc[j] = 1;
            wrt[j] = MPI_DOUBLE;
            wrd[j] = (int)((char *)&rw[j].d - (char *)rw);
        }
    }
    memset(rw, 0, sizeof rw);
    MPI_Alltoallw(sw, wsc, wsd, wst, rw, wrc, wrd, wrt, MPI_COMM_WORLD);
    for (j = 0; j < size; j++) {
        if (rank % 2 == 0)
            CHECK(rw[j].i[0] == j && rw[j].i[1] == rank, "rank %d alltoallw from %d: %d %d\n", rank, j, rw[j].i[0],
                  rw[j].i[1]);
        else
            CHECK(rw[j].d == j + 0.5, "rank %d alltoallw from %d: %g\n", rank, j, rw[j].d);
    }
    MPI_Type_free(&two_ints);

    // Reduce_scatter: rank i gets i%2+1 sums
    int in[2 * MAXR], out[2] = {0, 0};
    for (i = 0, k = 0; i < size; i++) {
        rcounts[i] = i % 2 + 1;
        k += rcounts[i];
    }
    for (i = 0; i < k; i++)
        in[i] = i + rank;
    MPI_Reduce_scatter(in, out, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0, k = 0; i < rank; i++)
        k += rcounts[i];
    for (i = 0; i < rcounts[rank]; i++)
        CHECK(out[i] == size * (k + i) + size * (size - 1) / 2, "rank %d reduce_scatter [%d] = %d\n", rank, i,
              out[i]);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_coll_v_variants: OK\n");
    MPI_Finalize();
    return total != 0;
}
