// ranks: 2
//
// ok_persistent_coll_start.c: an iterative solver that sets up its
// per-iteration collectives once as persistent requests (the residual
// norm's allreduce, the parameters' broadcast, a barrier) and starts and
// completes them every iteration. With an MPI-4 library these are
// MPI_Allreduce_init, MPI_Bcast_init and MPI_Barrier_init; Open MPI 4.1
// (an MPI-3.1 library) has them as the MPIX_ extensions of <mpi-ext.h>.
// Before making them, the solver checks its setup with a nonblocking
// allreduce, completed at once: Open MPI may hand a persistent request
// the address of that completed one, which must not be taken for it.
// Follows MPI-4.1 §6.13 (persistent collectives: started with MPI_Start
// or MPI_Startall, completed, started again, freed when inactive).
// Correct: must produce no findings; every rank checks the results.
#include <mpi.h>
#include <stdio.h>
#if MPI_VERSION < 4 && defined(OPEN_MPI)
#include <mpi-ext.h>
#define Allreduce_init MPIX_Allreduce_init
#define Bcast_init MPIX_Bcast_init
#define Barrier_init MPIX_Barrier_init
#else
#define Allreduce_init MPI_Allreduce_init
#define Bcast_init MPI_Bcast_init
#define Barrier_init MPI_Barrier_init
#endif

enum { ITERS = 10 };

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double local, norm, params[2];
    MPI_Request r[3];
    int ready = 1, all_ready;
    MPI_Iallreduce(&ready, &all_ready, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    if (!all_ready)
        errors++;
    Allreduce_init(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    Bcast_init(params, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    for (int it = 1; it <= ITERS; it++) {
        local = it * (rank + 1);
        MPI_Start(&r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        if (norm != it * size * (size + 1) / 2.0)
            errors++;
        if (rank == 0) {
            params[0] = it;
            params[1] = norm;
        }
        MPI_Status st[2];
        MPI_Startall(2, &r[1]);
        MPI_Waitall(2, &r[1], st);
        if (params[0] != it || params[1] != norm)
            errors++;
    }
    for (int i = 0; i < 3; i++)
        MPI_Request_free(&r[i]);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_persistent_coll_start: OK\n");
    MPI_Finalize();
    return all != 0;
}
