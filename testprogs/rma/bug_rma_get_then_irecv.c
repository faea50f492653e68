// ranks: 3
//
// bug_rma_get_then_irecv.c: rank 0 fetches its work item from rank 1's
// window with MPI_Get under MPI_Win_lock, and, before MPI_Win_unlock
// completes that get, posts MPI_Irecv for the item rank 2 sends into the
// same buffer. Both operations write the buffer while they are pending,
// in an order MPI does not define. MPI-4.1 §12.3 (the buffer a get writes
// must not be accessed until the get completes at the origin) and §3.7.2
// (nor a pending receive's). mpidbg must report buffer-overlap at the
// MPI_Irecv, before MPI sees it, with the MPI_Get as the related place.
#include <mpi.h>
#include <stdlib.h>

enum { ITEM = 8 };

int main(int argc, char **argv)
{
    int rank, *mem;
    int item[ITEM];
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Win_allocate(ITEM * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < ITEM; i++)
        mem[i] = 10 * rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Get(item, ITEM, MPI_INT, 1, 0, ITEM, MPI_INT, win); // related "buffer-overlap"
        MPI_Irecv(item, ITEM, MPI_INT, 2, 0, MPI_COMM_WORLD, &req); // want "buffer-overlap" "buf writes memory that the MPI_Get still in progress also writes"
        MPI_Win_unlock(1, win);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 2) {
        MPI_Send(mem, ITEM, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
