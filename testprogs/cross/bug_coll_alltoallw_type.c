// ranks: 3
// native[openmpi]: hangs
//
// bug_coll_alltoallw_type.c: every rank hands each other rank the
// position of one of its particles with MPI_Alltoallw. The receivers
// describe a position as one xyz (three contiguous doubles); the senders
// send three MPI_DOUBLE, which has the same type signature, except rank
// 2, which keeps its positions in single precision and sends them as
// three MPI_FLOAT: the counts agree, the types do not.
// Breaks MPI-4.1 §6.1 and §6.8 (MPI_ALLTOALLW): the type signature
// associated with sendcounts[j], sendtypes[j] at process i must equal
// that of recvcounts[i], recvtypes[i] at process j.
// Expected: collective-type-mismatch at the MPI_Alltoallw, the message
// naming MPI_FLOAT on the ranks that receive from rank 2.
//
// Natively MPICH's receivers take 12 bytes where they expect 24 without
// complaint and read garbage doubles. Open MPI raises MPI_ERR_TRUNCATE on
// rank 2, whose block to itself is a short one (fatal by default, hence
// MPI_ERRORS_RETURN), which returns from the exchange while the other
// ranks still wait for its blocks: with Open MPI the job hangs, natively
// too, and mpidbg reports that deadlock as well.
#include <mpi.h>
#include <stdio.h>

enum { MAXR = 4 };

int main(int argc, char **argv)
{
    int rank, size;
    double pos[MAXR][3], got[MAXR][3];
    float posf[MAXR][3];
    int scounts[MAXR], sdispls[MAXR], rcounts[MAXR], rdispls[MAXR];
    MPI_Datatype stypes[MAXR], rtypes[MAXR], xyz;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXR)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Type_contiguous(3, MPI_DOUBLE, &xyz);
    MPI_Type_commit(&xyz);

    for (int j = 0; j < size; j++)
        for (int k = 0; k < 3; k++) {
            pos[j][k] = rank + 0.25 * j + 0.01 * k;
            posf[j][k] = (float)pos[j][k];
        }
    const void *sbuf = rank == 2 ? (const void *)posf : (const void *)pos;
    for (int j = 0; j < size; j++) {
        scounts[j] = 3;
        sdispls[j] = rank == 2 ? (int)(j * sizeof posf[0]) : (int)(j * sizeof pos[0]);
        stypes[j] = rank == 2 ? MPI_FLOAT : MPI_DOUBLE; // bug: rank 2 sends floats
        rcounts[j] = 1;
        rdispls[j] = (int)(j * sizeof got[0]);
        rtypes[j] = xyz;
    }
    MPI_Alltoallw(sbuf, scounts, sdispls, stypes, got, rcounts, rdispls, rtypes, MPI_COMM_WORLD); // want "collective-type-mismatch" "rank 2 sends 3 of MPI_FLOAT to this rank, which receives recvcounts\[2\] = 1 of recvtypes\[2\]" want[openmpi] "deadlock"

    MPI_Type_free(&xyz);
    MPI_Finalize();
    return 0;
}
