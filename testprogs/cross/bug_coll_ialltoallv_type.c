// ranks: 4
//
// bug_coll_ialltoallv_type.c: a parallel sort's key exchange: each rank
// sends rank j the (i+j)%3+1 keys that belong there with MPI_Ialltoallv
// and merges its own meanwhile. Rank 2 comes from an older build whose
// keys are unsigned: it sends and receives MPI_UNSIGNED, the others
// MPI_INT.
// Breaks MPI-4.1 §6.8 (MPI_ALLTOALLV) and §6.1: the type signature of
// sendcounts[j], sendtype at process i must equal that of recvcounts[i],
// recvtype at process j.
// Expected: collective-type-mismatch at the MPI_Ialltoallv (every rank
// exchanges a block with rank 2, and finds it), when the request is waited
// for.
//
// Natively MPICH and Open MPI complete (same sizes).
#include <mpi.h>

#define MAXR 8

int main(int argc, char **argv)
{
    int rank, size, i, j, counts[MAXR], displs[MAXR], rcounts[MAXR], rdispls[MAXR];
    int keys[3 * MAXR], got[3 * MAXR];
    long merged = 0;
    MPI_Datatype keytype;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    keytype = rank == 2 ? MPI_UNSIGNED : MPI_INT; // bug: one build's keys are unsigned
    for (j = 0; j < size; j++) {
        counts[j] = (rank + j) % 3 + 1;
        displs[j] = 3 * j;
        rcounts[j] = (j + rank) % 3 + 1;
        rdispls[j] = 3 * j;
        for (i = 0; i < 3; i++)
            keys[3 * j + i] = 100 * rank + 10 * j + i;
    }
    MPI_Ialltoallv(keys, counts, displs, keytype, got, rcounts, rdispls, keytype, MPI_COMM_WORLD, &r); // want "collective-type-mismatch" "the blocks of MPI_Ialltoallv do not pair up"
    for (i = 0; i < counts[rank]; i++)
        merged += keys[3 * rank + i];
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    MPI_Finalize();
    return merged < 0 || got[0] < -1;
}
