// ranks: 2
//
// bug_leak_win.c: the ranks of a node share a window (MPI_Win_allocate_shared),
// each puts its rank into its neighbour's slot between two fences, and the
// window is never freed.
// Warns about MPI-4.1 §12.2.5: windows are freed with MPI_WIN_FREE.
// Expected: leak-win (warning), reported at MPI_Finalize against the line
// that created the window (the MPI_Win_allocate_shared, both ranks).
//
// A shared-memory window because MPICH 4.0.2 over UCX asserts in
// MPI_Finalize on a leaked MPI_Win_create/MPI_Win_allocate window (its
// memory registration is still in use); a leaked shared window finalizes
// cleanly, so the program exits 0 natively.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, nrank, nsize, *slot;
    MPI_Comm node;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);

    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &slot, &win); // want "leak-win"
    *slot = -1;
    MPI_Win_fence(0, win);
    MPI_Put(&nrank, 1, MPI_INT, (nrank + 1) % nsize, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    // bug: no MPI_Win_free(&win)

    if (*slot != (nrank + nsize - 1) % nsize)
        printf("rank %d: slot %d\n", rank, *slot);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
