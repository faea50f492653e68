// ranks: 2
//
// bug_rma_get_before_unlock.c: rank 0 locks rank 1's window (shared),
// gets 4 ints into a heap buffer and adds them up before calling
// MPI_Win_unlock. MPI-4.1 §12.3.2 and §12.5.3: the result buffer of
// MPI_Get must not be accessed until the operation completes at the
// origin (MPI_Win_unlock, MPI_Win_flush or MPI_Win_flush_local for that
// target); until then it may hold old data, new data or a mix. mpidbg must
// report rma-origin-race at the read of the buffer, with the MPI_Get as
// the related place.
//
// The buffer is a heap page of its own (posix_memalign): 16 bytes of
// malloc share their page with objects the MPI library itself touches
// during the epoch (Open MPI's, and MPICH's under load), and the race
// tracker leaves such a page unwatched after a few faults from the
// library, in some runs and not others (docs/openmpi.md, "Known limits").
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, i, sum = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int *mem = malloc(4 * sizeof *mem);
    for (i = 0; i < 4; i++)
        mem[i] = 10 * rank + i;
    int *dst;
    if (posix_memalign((void **)&dst, 4096, 4096) != 0)
        return 1;
    for (i = 0; i < 4; i++)
        dst[i] = 0;
    MPI_Win_create(mem, 4 * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Get(dst, 4, MPI_INT, 1, 0, 4, MPI_INT, win); // related "rma-origin-race"
        sum = dst[2];                                     // want "rma-origin-race"
        MPI_Win_unlock(1, win);
        sum += dst[2];
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(dst);
    free(mem);
    MPI_Finalize();
    return sum < 0; /* never: the sum only keeps the read */
}
