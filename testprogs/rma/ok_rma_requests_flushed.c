// ranks: 3
//
// ok_rma_requests_flushed.c: a block fetcher. Each rank pulls its two
// neighbours' blocks from their windows with MPI_Rget into one staging
// buffer on the heap, completes each with MPI_Win_flush_local and folds
// the block into a running sum before the next MPI_Rget reuses the
// buffer; it then pushes its result into a slot of each neighbour's window
// with MPI_Rput from a second buffer, rewrites that buffer after MPI_Win_flush, and
// adds a last contribution with MPI_Raccumulate, rewriting its origin
// after MPI_Win_unlock_all. The requests are only waited for at the end,
// all at once (MPI_Waitall), after MPI_Win_unlock_all.
// Correct: MPI-4.1 §12.5.4 says MPI_Win_flush completes every outstanding
// RMA operation to its target at the origin and the target, and
// MPI_Win_flush_local at the origin; request-based operations are RMA
// operations like the others, and the request's completion (§12.3.5) is
// one way to learn that the buffer is free, not the only one. An
// MPI_Irecv into the staging buffer after the flush does not overlap a
// pending operation either. Expected: no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { BLOCK = 64 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Win win;
    double *mem;
    MPI_Request reqs[6];
    MPI_Status st[6];
    int nreq = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(3 * BLOCK * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < 3 * BLOCK; i++)
        mem[i] = i < BLOCK ? rank + 1 : 0;
    double *stage = malloc(BLOCK * sizeof *stage), *out = malloc(BLOCK * sizeof *out);
    int nbr[2] = {(rank + size - 1) % size, (rank + 1) % size};
    double sum = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    for (int k = 0; k < 2; k++) {
        MPI_Rget(stage, BLOCK, MPI_DOUBLE, nbr[k], 0, BLOCK, MPI_DOUBLE, win, &reqs[nreq++]);
        MPI_Win_flush_local(nbr[k], win);
        for (int i = 0; i < BLOCK; i++)
            sum += stage[i]; /* complete at the origin: the flush said so */
    }
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < BLOCK; i++)
            out[i] = sum + k;
        /* into the slot the target keeps for this side: its right neighbour's
         * block at BLOCK, its left neighbour's at 2 * BLOCK */
        MPI_Rput(out, BLOCK, MPI_DOUBLE, nbr[k], (1 + k) * BLOCK, BLOCK, MPI_DOUBLE, win, &reqs[nreq++]);
        MPI_Win_flush(nbr[k], win);
        out[0] = -1; /* the put is complete at both ends */
    }
    out[1] = 1;
    MPI_Raccumulate(&out[1], 1, MPI_DOUBLE, nbr[1], 2 * BLOCK + 1, 1, MPI_DOUBLE, MPI_SUM, win, &reqs[nreq++]);
    MPI_Win_unlock_all(win);
    out[1] = 0; /* the unlock completed the accumulate */

    /* the staging buffer again, for a message, while the requests are
     * still to be waited for */
    MPI_Irecv(stage, BLOCK, MPI_DOUBLE, nbr[0], 0, MPI_COMM_WORLD, &reqs[nreq++]);
    MPI_Send(out, BLOCK, MPI_DOUBLE, nbr[1], 0, MPI_COMM_WORLD);
    MPI_Waitall(nreq, reqs, st);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    /* the neighbours' blocks, and what each put here: its sum, the first
     * element overwritten after the flush only on this side (-1 never
     * travels: the put was complete), the accumulate on the left's slot */
    int ok = sum == BLOCK * (nbr[0] + 1) + BLOCK * (nbr[1] + 1) && mem[BLOCK + 2] == mem[BLOCK + 3] &&
             mem[BLOCK] != -1 && mem[2 * BLOCK] != -1 && mem[2 * BLOCK + 1] == mem[2 * BLOCK + 2] + 1;
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);
    free(stage);
    free(out);
    if (!ok)
        printf("rank %d: sum %g\n", rank, sum);
    else if (rank == 0)
        printf("ok_rma_requests_flushed: OK\n");
    MPI_Finalize();
    return !ok;
}
