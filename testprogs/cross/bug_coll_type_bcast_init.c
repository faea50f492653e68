// ranks: 3
// mpi: 4 (persistent collectives are MPI-4.0)
//
// bug_coll_type_bcast_init.c: a persistent broadcast made with
// MPI_Bcast_init and started twice. The root sends 4 MPI_INT; the other
// ranks receive 4 MPI_FLOAT (same size: MPI copies the bytes).
// Breaks MPI-4.1 §6.1 and §6.13: the type signatures of a collective must
// match pairwise between each process and the root (INT against FLOAT).
// Expected: collective-type-mismatch at the MPI_Bcast_init (every rank).
//
// Natively MPICH completes, and the non-root ranks read ints as floats.
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, it;
    union {
        int i[4];
        float f[4];
    } buf = {{0, 0, 0, 0}};
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Datatype t = rank == 0 ? MPI_INT : MPI_FLOAT; // bug: the receivers expect floats
    MPI_Bcast_init(&buf, 4, t, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r); // want "collective-type-mismatch"
    for (it = 0; it < 2; it++) {
        if (rank == 0)
            buf.i[0] = it;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&r);

    MPI_Finalize();
    return 0;
}
