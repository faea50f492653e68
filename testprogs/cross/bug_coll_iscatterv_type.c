// ranks: 3
//
// bug_coll_iscatterv_type.c: rank 0 deals out the initial weights with
// MPI_Iscatterv, rank i getting i+1 of them as MPI_INT, while it reads
// the rest of its input. Rank 1 stores its weights as float and posts
// its receive with MPI_FLOAT: the same 4 bytes per weight, not the same
// type signature.
// Breaks MPI-4.1 §6.6 (MPI_SCATTERV) and §6.1: the type signature of
// sendcounts[i], sendtype at the root must equal that of recvcount,
// recvtype at process i.
// Expected: collective-type-mismatch at rank 1's MPI_Iscatterv (the
// receiver compares what the root sends it with what it receives), when
// the request is waited for.
//
// Natively MPICH and Open MPI complete, with rank 1's weights read as
// floats.
#include <mpi.h>

#define MAXR 8

int main(int argc, char **argv)
{
    int rank, size, i, k, counts[MAXR], displs[MAXR], all[MAXR * MAXR], w[MAXR];
    float fw[MAXR];
    double input = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (i = 0, k = 0; i < size; i++) {
        counts[i] = i + 1;
        displs[i] = k;
        k += i + 1;
    }
    for (i = 0; i < k; i++)
        all[i] = 10 + i;
    if (rank == 1) // bug: the float weights need an MPI_INT receive and a conversion
        MPI_Iscatterv(all, counts, displs, MPI_INT, fw, rank + 1, MPI_FLOAT, 0, MPI_COMM_WORLD, &r); // want "collective-type-mismatch" "here: the root sends 2 of MPI_INT \(sendcounts\[1\]\), this rank receives 2 of MPI_FLOAT"
    else
        MPI_Iscatterv(all, counts, displs, MPI_INT, w, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
    for (i = 0; i < 100; i++)
        input += 0.5 * i;
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    MPI_Finalize();
    return input < 0 || (rank == 1 && fw[0] < -1e30f);
}
