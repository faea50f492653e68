// ranks: 4
//
// ok_coll_nonblocking_v.c: the correct twin of bug_coll_iallgatherv_type.c,
// bug_coll_ialltoallv_type.c and bug_coll_igatherv_type.c. The
// nonblocking v and w collectives (MPI-4.1 §6.12) with counts and types
// that agree pairwise, several outstanding at once and completed in
// another order than started: MPI_Igatherv and MPI_Iallgatherv where
// rank i contributes i+1 points, sent as 2(i+1) MPI_DOUBLE and received
// as i+1 contiguous(2, MPI_DOUBLE) (equal signatures); MPI_Iallgatherv
// with MPI_IN_PLACE; MPI_Iscatterv from rank 3; MPI_Ialltoallv with
// counts (i+j)%3+1; MPI_Ialltoallw sending two ints to even ranks and a
// double to odd ones, which even ranks receive as one contiguous(2,
// MPI_INT). Completed with MPI_Waitall, MPI_Test polling and MPI_Wait.
// Every value is checked.
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
    int rank, size, total, i, j, k, flag = 0;
    int counts[MAXR], displs[MAXR], acounts[MAXR], adispls[MAXR], rcounts[MAXR], rdispls[MAXR];
    double mine[2 * MAXR], gat[2 * MAXR * MAXR], all[2 * MAXR * MAXR], inplace[2 * MAXR * MAXR];
    MPI_Datatype point;
    MPI_Request r[4];
    MPI_Status st[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_DOUBLE, &point);
    MPI_Type_commit(&point);

    // Igatherv, Iallgatherv (twice, once in place): rank i gives i+1 points
    for (i = 0, k = 0; i < size; i++) {
        counts[i] = i + 1;
        displs[i] = k;
        k += i + 1;
    }
    for (j = 0; j < 2 * (rank + 1); j++)
        mine[j] = 10 * rank + j;
    memset(gat, 0, sizeof gat);
    memset(all, 0, sizeof all);
    for (i = 0; i < size; i++)
        for (j = 0; j < 2 * (i + 1); j++)
            inplace[2 * displs[i] + j] = i == rank ? 10 * i + j : -1;
    MPI_Igatherv(mine, 2 * (rank + 1), MPI_DOUBLE, gat, counts, displs, point, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Iallgatherv(mine, 2 * (rank + 1), MPI_DOUBLE, all, counts, displs, point, MPI_COMM_WORLD, &r[1]);
    MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace, counts, displs, point, MPI_COMM_WORLD, &r[2]);
    MPI_Waitall(3, r, st);
    for (i = 0; i < size; i++)
        for (j = 0; j < 2 * (i + 1); j++) {
            CHECK(all[2 * displs[i] + j] == 10 * i + j, "rank %d iallgatherv [%d][%d] = %g\n", rank, i, j,
                  all[2 * displs[i] + j]);
            CHECK(inplace[2 * displs[i] + j] == 10 * i + j, "rank %d in place [%d][%d] = %g\n", rank, i, j,
                  inplace[2 * displs[i] + j]);
            if (rank == 0)
                CHECK(gat[2 * displs[i] + j] == 10 * i + j, "igatherv [%d][%d] = %g\n", i, j, gat[2 * displs[i] + j]);
        }

    // Iscatterv from rank 3 (rank i gets i+1 points) and Ialltoallv, both
    // outstanding; the second completed first, by polling
    if (rank == 3)
        for (i = 0; i < 2 * k; i++)
            all[i] = 1000 + i;
    memset(mine, 0, sizeof mine);
    MPI_Iscatterv(all, counts, displs, point, mine, 2 * (rank + 1), MPI_DOUBLE, 3, MPI_COMM_WORLD, &r[0]);
    int sbuf[MAXR * 3], rbuf[MAXR * 3];
    for (j = 0; j < size; j++) { // the arrays of the MPI_Iscatterv in flight stay as they are
        acounts[j] = (rank + j) % 3 + 1;
        adispls[j] = 3 * j;
        rcounts[j] = (j + rank) % 3 + 1;
        rdispls[j] = 3 * j;
        for (i = 0; i < 3; i++)
            sbuf[3 * j + i] = 100 * rank + 10 * j + i;
    }
    MPI_Ialltoallv(sbuf, acounts, adispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD, &r[1]);
    while (!flag)
        MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    for (i = 0, k = 0; i < rank; i++)
        k += i + 1;
    CHECK(mine[2 * rank + 1] == 1000 + 2 * k + 2 * rank + 1, "rank %d iscatterv: %g\n", rank, mine[2 * rank + 1]);
    for (j = 0; j < size; j++)
        for (i = 0; i < rcounts[j]; i++)
            CHECK(rbuf[3 * j + i] == 100 * j + 10 * rank + i, "rank %d ialltoallv from %d [%d] = %d\n", rank, j,
                  i, rbuf[3 * j + i]);

    // Ialltoallw: two ints to even ranks, one double to odd ranks
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
        wsc[j] = j % 2 == 0 ? 2 : 1;
        wst[j] = j % 2 == 0 ? MPI_INT : MPI_DOUBLE;
        wsd[j] = j % 2 == 0 ? (int)((char *)sw[j].i - (char *)sw) : (int)((char *)&sw[j].d - (char *)sw);
        wrc[j] = 1;
        wrt[j] = rank % 2 == 0 ? two_ints : MPI_DOUBLE;
        wrd[j] = rank % 2 == 0 ? (int)((char *)rw[j].i - (char *)rw) : (int)((char *)&rw[j].d - (char *)rw);
    }
    memset(rw, 0, sizeof rw);
    MPI_Ialltoallw(sw, wsc, wsd, wst, rw, wrc, wrd, wrt, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    for (j = 0; j < size; j++) {
        if (rank % 2 == 0)
            CHECK(rw[j].i[0] == j && rw[j].i[1] == rank, "rank %d ialltoallw from %d: %d %d\n", rank, j, rw[j].i[0],
                  rw[j].i[1]);
        else
            CHECK(rw[j].d == j + 0.5, "rank %d ialltoallw from %d: %g\n", rank, j, rw[j].d);
    }
    MPI_Type_free(&two_ints);
    MPI_Type_free(&point);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_coll_nonblocking_v: OK\n");
    MPI_Finalize();
    return total != 0;
}
