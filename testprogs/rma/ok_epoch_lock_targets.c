// ranks: 3
//
// ok_epoch_lock_targets.c: passive-target epochs used as MPI-4.1 §12.5.3
// allows, close to what the epoch-lifecycle bugs get wrong. Each rank
// holds shared locks on both neighbours at once (different targets of one
// window), puts its rank into a slot of each, completes the right one
// early with MPI_Win_flush_local and unlocks them in the other order
// than it locked them. Then an MPI_Win_lock_all epoch: a get from every
// rank with MPI_Win_flush per target, MPI_Win_flush_local_all,
// MPI_Fetch_and_op on a counter at rank 0 and MPI_Win_flush_all; an
// MPI_Rget waited inside the epoch. Then an exclusive lock on its own
// window around local stores, and a lock with MPI_MODE_NOCHECK. The
// window is freed after every epoch ended. Correct: must produce no
// findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define WIN 16 /* ints: slot 0 counter, 1 left's put, 2 right's put, 3 own value */

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, r, total, *mem, one = 1, ticket = -1, tag;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_allocate(WIN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (r = 0; r < WIN; r++)
        mem[r] = -1;
    mem[0] = 0;
    mem[3] = 100 + rank;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* two targets locked at once */
    int *me = malloc(sizeof *me);
    *me = rank;
    MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Put(me, 1, MPI_INT, right, 1, 1, MPI_INT, win);
    MPI_Win_flush_local(right, win);
    MPI_Put(me, 1, MPI_INT, left, 2, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Win_unlock(left, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* one epoch to everybody */
    int *got = calloc((size_t)size, sizeof *got);
    MPI_Win_lock_all(0, win);
    for (r = 0; r < size; r++) {
        MPI_Get(&got[r], 1, MPI_INT, r, 3, 1, MPI_INT, win);
        MPI_Win_flush(r, win);
    }
    MPI_Win_flush_local_all(win);
    MPI_Fetch_and_op(&one, &ticket, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Win_flush_all(win);
    MPI_Rget(&tag, 1, MPI_INT, right, 1, 1, MPI_INT, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
    for (r = 0; r < size; r++)
        CHECK(got[r] == 100 + r, "rank %d: got %d from rank %d\n", rank, got[r], r);
    CHECK(ticket >= 0 && ticket < size, "rank %d: ticket %d\n", rank, ticket);
    CHECK(tag == rank, "rank %d: right's slot 1 holds %d\n", rank, tag);
    MPI_Barrier(MPI_COMM_WORLD);

    /* the own window, then a lock asserted uncontended */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    CHECK(mem[1] == left && mem[2] == right, "rank %d: slots %d %d\n", rank, mem[1], mem[2]);
    CHECK(rank != 0 || mem[0] == size, "rank 0: counter %d\n", mem[0]);
    mem[4] = mem[1] + mem[2];
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int sum = -1;
        MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, win);
        MPI_Get(&sum, 1, MPI_INT, right, 4, 1, MPI_INT, win);
        MPI_Win_unlock(right, win);
        CHECK(sum == rank + (right + 1) % size, "rank 0: sum %d\n", sum);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_free(&win);
    free(me);
    free(got);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_epoch_lock_targets: OK\n");
    MPI_Finalize();
    return total != 0;
}
