// ranks: 2
//
// bug_rma_get_into_shared.c: a hybrid program (MPI_THREAD_MULTIPLE) keeps
// a node-shared window (MPI_Win_allocate_shared: each rank's segment, two
// pages of doubles, is memory every rank of the node maps) and a second
// window over it for one-sided reads. Rank 0 opens a passive-target epoch
// on all ranks, fetches rank 1's first row into the second row of its own
// segment with MPI_Get and uses it before MPI_Win_flush. MPI-4.1 §12.3.2
// and §12.5.3: the result buffer of MPI_Get must not be accessed until
// the operation completes at the origin (MPI_Win_flush, MPI_Win_flush_local
// or MPI_Win_unlock_all here); until then it may hold old data, new data
// or a mix. That the buffer is shared memory changes nothing for this
// process's own accesses. mpidbg must report rma-origin-race at the read,
// with the MPI_Get as the related place.
#include <mpi.h>

enum { N = 512 }; /* a row: one page of doubles */

int main(int argc, char **argv)
{
    int rank, provided, i;
    double *seg, sum = 0;
    MPI_Comm node;
    MPI_Win win;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Win_allocate_shared(2 * N * sizeof *seg, sizeof *seg, MPI_INFO_NULL, node, &seg, &win);
    for (i = 0; i < 2 * N; i++)
        seg[i] = rank * 1000 + i;
    MPI_Barrier(node);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Get(&seg[N], N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win); // related "rma-origin-race"
        for (i = 0; i < 8; i++)
            sum += seg[N + i]; // want "rma-origin-race" "loaded from the result buffer at offset 0, element \[0\]\(DOUBLE\) before the MPI_Get completed"
        MPI_Win_flush(1, win);
        sum += seg[N];
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(node);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return sum < 0; /* never: the sum only keeps the reads */
}
