// ranks: 3
//
// bug_coll_op_persistent.c: a persistent reduction made once with
// MPI_Allreduce_init and started three times; rank 2 builds it with
// MPI_PROD where the others use MPI_SUM.
// Breaks MPI-4.1 §6.9.1 and §6.13 (a persistent collective takes the same
// arguments on every process, as its blocking form): the op argument must
// be the same on all processes.
// Expected: collective-op-mismatch at the MPI_Allreduce_init (every rank;
// a persistent collective is checked where it is made, not at MPI_Start),
// or at MPIX_Allreduce_init, its name in Open MPI 4.1 (<mpi-ext.h>).
//
// Natively MPICH completes with a result that depends on which rank
// applied which operation.
#include <mpi.h>
#if MPI_VERSION < 4 && defined(OPEN_MPI)
#include <mpi-ext.h>
#define MPI_Allreduce_init MPIX_Allreduce_init
#endif

int main(int argc, char **argv)
{
    int rank, it;
    long in, out = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Op op = rank == 2 ? MPI_PROD : MPI_SUM; // bug: rank 2's op differs
    MPI_Allreduce_init(&in, &out, 1, MPI_LONG, op, MPI_COMM_WORLD, MPI_INFO_NULL, &r); // want "collective-op-mismatch"
    for (it = 1; it <= 3; it++) {
        in = it + rank;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&r);

    MPI_Finalize();
    return out < 0;
}
