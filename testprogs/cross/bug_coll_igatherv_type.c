// ranks: 3
//
// bug_coll_igatherv_type.c: rank 0 collects every rank's residual history
// with MPI_Igatherv, rank i sending i+1 values of a struct {double r;
// double t;}, described by the root as i+1 elements of a contiguous(2,
// MPI_DOUBLE) type. Rank 2 sends a compressed copy instead: 4(i+1)
// MPI_FLOAT, the same bytes.
// Breaks MPI-4.1 §6.5 (MPI_GATHERV) and §6.1: the type signature of
// sendcount, sendtype at process i must equal that of recvcounts[i],
// recvtype at the root.
// Expected: collective-type-mismatch at the MPI_Igatherv of rank 2, the
// one that sends the mismatched block (it compares its block with what
// the root expects), when the request is waited for.
//
// Natively MPICH and Open MPI complete (same sizes), with rank 2's
// history read as doubles.
#include <mpi.h>

#define MAXR 8

int main(int argc, char **argv)
{
    int rank, size, i, k, counts[MAXR], displs[MAXR];
    double hist[2 * MAXR], all[2 * MAXR * MAXR], norm = 0;
    float packed[4 * MAXR];
    MPI_Datatype pair;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);

    for (i = 0, k = 0; i < size; i++) {
        counts[i] = i + 1;
        displs[i] = k;
        k += i + 1;
    }
    for (i = 0; i < 2 * (rank + 1); i++)
        hist[i] = 1.0 / (1 + i + rank);
    for (i = 0; i < 4 * (rank + 1); i++)
        packed[i] = (float)(0.5 * i);
    if (rank == 2) // bug: the compressed copy goes out, as floats
        MPI_Igatherv(packed, 4 * (rank + 1), MPI_FLOAT, all, counts, displs, pair, 0, MPI_COMM_WORLD, &r); // want "collective-type-mismatch" "here: this rank sends 12 of MPI_FLOAT, the root receives 3 of its recvtype \(recvcounts\[2\]\)"
    else
        MPI_Igatherv(hist, rank + 1, pair, all, counts, displs, pair, 0, MPI_COMM_WORLD, &r);
    for (i = 0; i < 2 * (rank + 1); i++)
        norm += hist[i];
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Type_free(&pair);

    MPI_Finalize();
    return norm < 0 || (rank == 0 && all[0] < -1e300);
}
