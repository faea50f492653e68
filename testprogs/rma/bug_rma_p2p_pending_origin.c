// ranks: 3
//
// bug_rma_p2p_pending_origin.c: two point-to-point calls on buffers of
// one-sided operations still in progress. Rank 0 reads a block of rank
// 1's window with MPI_Get under MPI_Win_lock_all and forwards it to rank
// 2 with MPI_Send before MPI_Win_flush completed the get: the send reads
// memory the get may still be writing. Then it puts its own block to rank
// 1 and, before the flush, receives rank 2's next block into the Put's
// origin buffer: the receive writes memory the put may still be reading.
// MPI-4.1 §12.3: the origin buffer of a put must not be updated, and the
// buffer of a get not accessed, until the operation completes at the
// origin. mpidbg must report buffer-overlap at both point-to-point calls,
// before MPI sees them, with the one-sided operations as related places.
#include <mpi.h>
#include <stdlib.h>

enum { BLOCK = 32 };

int main(int argc, char **argv)
{
    int rank, *mem;
    double block[BLOCK], mine[BLOCK];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Win_allocate(2 * BLOCK * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < BLOCK; i++)
        mine[i] = rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Get(block, BLOCK, MPI_DOUBLE, 1, 0, BLOCK, MPI_DOUBLE, win); // related "buffer-overlap"
        MPI_Send(block, BLOCK, MPI_DOUBLE, 2, 0, MPI_COMM_WORLD); // want "buffer-overlap" "buf reads memory that the MPI_Get still in progress writes"
        MPI_Win_flush(1, win);
        MPI_Put(mine, BLOCK, MPI_DOUBLE, 1, BLOCK, BLOCK, MPI_DOUBLE, win); // related "buffer-overlap"
        MPI_Recv(mine, BLOCK, MPI_DOUBLE, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "buffer-overlap" "buf writes memory that the MPI_Put still in progress reads"
        MPI_Win_flush(1, win);
    } else if (rank == 2) {
        MPI_Recv(block, BLOCK, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(mine, BLOCK, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
