// ranks: 6
// native[openmpi]: hangs
//
// bug_coll_alltoallv.c: an all-to-all exchange of variable blocks: rank i
// sends i+1 ints to every rank, and every rank sizes its receive from rank
// i as i+1 ints. Rank 5 computes its send count as its rank (an
// off-by-one), one int short for every destination.
// Breaks MPI-4.1 §6.1 and §6.8 (MPI_ALLTOALLV): the type signature of
// sendcounts[j], sendtype on process i must equal that of recvcounts[i],
// recvtype on process j; unlike point-to-point, a shorter block is an
// error.
// Expected: collective-type-mismatch at the MPI_Alltoallv (every rank:
// each receives a short block from rank 5).
//
// Natively MPICH completes: the short blocks arrive and leave the last int
// of each receive block from rank 5 unset. Open MPI raises MPI_ERR_TRUNCATE
// on rank 5 (fatal by default, hence MPI_ERRORS_RETURN), which returns from
// the exchange while the other ranks still wait for its blocks: with Open
// MPI the job hangs, natively too, and mpidbg reports that deadlock as well.
#include <mpi.h>

#define MAXR 8

int main(int argc, char **argv)
{
    int rank, size, i, j;
    int scounts[MAXR], sdispls[MAXR], rcounts[MAXR], rdispls[MAXR];
    int sbuf[MAXR * MAXR], rbuf[MAXR * MAXR];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (j = 0; j < size; j++) {
        scounts[j] = rank == 5 ? rank : rank + 1; // bug: rank 5 is off by one
        sdispls[j] = MAXR * j;
        rcounts[j] = j + 1;
        rdispls[j] = MAXR * j;
        for (i = 0; i < MAXR; i++) {
            sbuf[MAXR * j + i] = 100 * rank + i;
            rbuf[MAXR * j + i] = -1;
        }
    }
    MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD); // want "collective-type-mismatch" want[openmpi] "deadlock"

    MPI_Finalize();
    return 0;
}
