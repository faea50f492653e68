// ranks: 2
//
// bug_epoch_finalize_open.c: the ranks of a node share a window
// (MPI_Win_allocate_shared) and exchange values with loads and stores
// inside an MPI_Win_lock_all epoch, ordered by MPI_Win_sync and barriers;
// the program ends without MPI_Win_unlock_all and without MPI_Win_free.
// MPI-4.1 §11.2.2: before MPI_Finalize a process completes the
// communication it started, and §12.2.5: a window is freed after its
// epochs end. Expected: epoch-left-open at MPI_Finalize, with the
// MPI_Win_lock_all as the related place, and leak-win (a warning) at the
// line that created the window.
//
// A shared-memory window because MPICH 4.0.2 over UCX asserts in
// MPI_Finalize on a leaked MPI_Win_create/MPI_Win_allocate window; a
// leaked shared window finalizes cleanly with both libraries.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, nrank, nsize, *slot, *peer, disp;
    MPI_Aint sz;
    MPI_Comm node;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);

    MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &slot, &win); // want "leak-win"
    MPI_Win_shared_query(win, (nrank + 1) % nsize, &sz, &disp, &peer);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    slot[0] = 10 + nrank;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    if (peer[0] != 10 + (nrank + 1) % nsize)
        printf("rank %d: neighbour slot %d\n", rank, peer[0]);
    MPI_Barrier(node);
    // bug: no MPI_Win_unlock_all(win), no MPI_Win_free(&win)

    MPI_Comm_free(&node);
    MPI_Finalize(); // want "epoch-left-open" "the access epoch MPI_Win_lock_all opened .* is still open on a window that was never freed"
    return 0;
}
