// ranks: 3
//
// ok_coll_alltoallw_type.c: the correct twin of bug_coll_alltoallw_type.c.
// Every rank sends each other rank the position of one particle as
// three MPI_DOUBLE; the receivers take it as one xyz, three contiguous
// doubles. Different datatypes, equal type signatures, which is all
// MPI-4.1 §6.8 (MPI_ALLTOALLW) asks. Rank 2 keeps its positions in
// single precision and converts them before the exchange.
#include <mpi.h>
#include <stdio.h>

enum { MAXR = 4 };

int main(int argc, char **argv)
{
    int rank, size, ok = 1;
    double pos[MAXR][3], got[MAXR][3];
    float posf[MAXR][3];
    int scounts[MAXR], sdispls[MAXR], rcounts[MAXR], rdispls[MAXR];
    MPI_Datatype stypes[MAXR], rtypes[MAXR], xyz;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXR)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Type_contiguous(3, MPI_DOUBLE, &xyz);
    MPI_Type_commit(&xyz);

    for (int j = 0; j < size; j++)
        for (int k = 0; k < 3; k++) {
            posf[j][k] = (float)(rank + 0.25 * j + 0.01 * k);
            pos[j][k] = rank == 2 ? (double)posf[j][k] : rank + 0.25 * j + 0.01 * k;
        }
    for (int j = 0; j < size; j++) {
        scounts[j] = 3;
        sdispls[j] = (int)(j * sizeof pos[0]);
        stypes[j] = MPI_DOUBLE;
        rcounts[j] = 1;
        rdispls[j] = (int)(j * sizeof got[0]);
        rtypes[j] = xyz;
    }
    MPI_Alltoallw(pos, scounts, sdispls, stypes, got, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++)
        for (int k = 0; k < 3; k++) {
            double want = j + 0.25 * rank + 0.01 * k;
            if (j == 2)
                want = (float)want;
            if (got[j][k] != want)
                ok = 0;
        }

    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Type_free(&xyz);
    MPI_Finalize();
    if (!ok)
        return 1;
    if (rank == 0)
        printf("ok_coll_alltoallw_type: OK\n");
    return 0;
}
