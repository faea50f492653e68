// ranks: 3
//
// bug_coll_iallgatherv_type.c: the ranks share their particles'
// coordinates with MPI_Iallgatherv while they rebuild their neighbour
// lists; rank i owns i+2 particles of 2 coordinates. Rank 1 keeps its
// coordinates in single precision and sends 2(i+2) MPI_FLOAT, where every
// rank receives i+2 elements of a contiguous(2, MPI_DOUBLE) "point" type
// for it: the same 16 bytes per particle, not the same type signature.
// Breaks MPI-4.1 §6.7 (MPI_ALLGATHERV) and §6.1: the type signature of
// sendcount, sendtype at process j must equal that of recvcounts[j],
// recvtype at every process.
// Expected: collective-type-mismatch (every rank receives rank 1's block,
// and finds it), when the request is waited for: one finding at the
// MPI_Iallgatherv of ranks 0 and 2, with rank 1's as a related line.
//
// Natively MPICH and Open MPI complete, with rank 1's coordinates read as
// doubles.
#include <mpi.h>

#define MAXR 8

int main(int argc, char **argv)
{
    int rank, size, i, n, counts[MAXR], displs[MAXR], k;
    float fx[2 * (MAXR + 2)];
    double dx[2 * (MAXR + 2)], all[2 * MAXR * (MAXR + 2)], cut = 0;
    MPI_Datatype point;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_DOUBLE, &point);
    MPI_Type_commit(&point);

    for (i = 0, k = 0; i < size; i++) {
        counts[i] = i + 2;
        displs[i] = k;
        k += i + 2;
    }
    n = rank + 2;
    for (i = 0; i < 2 * n; i++) {
        dx[i] = rank + 0.25 * i;
        fx[i] = (float)dx[i];
    }
    if (rank == 1) // bug: the single-precision copy, sent as floats
        MPI_Iallgatherv(fx, 2 * n, MPI_FLOAT, all, counts, displs, point, MPI_COMM_WORLD, &r); // related "collective-type-mismatch"
    else
        MPI_Iallgatherv(dx, n, point, all, counts, displs, point, MPI_COMM_WORLD, &r); // want "collective-type-mismatch" "the blocks of MPI_Iallgatherv do not pair up"
    for (i = 0; i < 2 * n; i++)
        cut += dx[i] * dx[i];
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Type_free(&point);

    MPI_Finalize();
    return cut < 0 || all[0] < -1e300;
}
