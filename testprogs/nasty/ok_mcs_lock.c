// ranks: 4
//
// ok_mcs_lock.c: the MCS queue lock of bug_mcs_lock_unflushed.c done
// right: the acquirer flushes its link into the predecessor's "next"
// field (MPI_Win_flush(pred)) before it waits to be handed the lock, so
// the link is complete at the predecessor whatever MPI delays (MPI-4.1
// §12.5.4). One window, MPI_Win_lock_all for the whole run, the tail at
// rank 0 (MPI_Fetch_and_op with MPI_REPLACE, MPI_Compare_and_swap), each
// rank's fields read with MPI_Fetch_and_op(MPI_NO_OP) and written with
// MPI_Accumulate(MPI_REPLACE); inside the lock a rank checks that nobody
// else is (a count of holders at rank 0) and adds 1 to a counter there.
// Correct: no findings, natively, under mpidbg and under --nasty (the
// harness runs it both ways).
#include <mpi.h>
#include <stdio.h>

enum { NEXT, LOCKED, TAIL, INSIDE, COUNTER, NSLOTS = 16 };
#define ROUNDS 5

static MPI_Win win;
static int rank, errors;

/* get and set read and write a field of this rank's part of the window
 * with accumulates, never with loads and stores, so that they are atomic
 * with the other ranks' accumulates on it (MPI-4.1 §12.7.1); the flush
 * also lets MPI make progress for the others' operations */
static int get(int slot)
{
    int v, unused = 0;
    MPI_Fetch_and_op(&unused, &v, MPI_INT, rank, slot, MPI_NO_OP, win);
    MPI_Win_flush(rank, win);
    return v;
}

static void set(int slot, int v)
{
    MPI_Accumulate(&v, 1, MPI_INT, rank, slot, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Win_flush(rank, win);
}

static void acquire(void)
{
    int pred;
    set(NEXT, -1);
    set(LOCKED, 1);
    MPI_Fetch_and_op(&rank, &pred, MPI_INT, 0, TAIL, MPI_REPLACE, win);
    MPI_Win_flush(0, win);
    if (pred != -1) {
        MPI_Accumulate(&rank, 1, MPI_INT, pred, NEXT, 1, MPI_INT, MPI_REPLACE, win);
        MPI_Win_flush(pred, win); /* the predecessor must see it before it can hand over */
        while (get(LOCKED))
            ;
    }
}

static void release(void)
{
    int none = -1, cur, zero = 0, next = get(NEXT);
    if (next == -1) {
        MPI_Compare_and_swap(&none, &rank, &cur, MPI_INT, 0, TAIL, win);
        MPI_Win_flush(0, win);
        if (cur == rank)
            return; /* nobody queued */
        while ((next = get(NEXT)) == -1)
            ;
    }
    MPI_Accumulate(&zero, 1, MPI_INT, next, LOCKED, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Win_flush(next, win);
}

/* the critical section: nobody else may be inside */
static void critical(void)
{
    int one = 1, minus = -1, was;
    MPI_Fetch_and_op(&one, &was, MPI_INT, 0, INSIDE, MPI_SUM, win);
    MPI_Win_flush(0, win);
    if (was != 0) {
        errors++;
        fprintf(stderr, "rank %d: %d other ranks hold the lock too\n", rank, was);
    }
    MPI_Accumulate(&one, 1, MPI_INT, 0, COUNTER, 1, MPI_INT, MPI_SUM, win);
    MPI_Fetch_and_op(&minus, &was, MPI_INT, 0, INSIDE, MPI_SUM, win);
    MPI_Win_flush(0, win);
}

int main(int argc, char **argv)
{
    int size, *mem, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(NSLOTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < NSLOTS; i++)
        mem[i] = 0;
    mem[NEXT] = mem[TAIL] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);

    for (int r = 0; r < ROUNDS; r++) {
        if (r == 0 && rank == 0)
            acquire();
        MPI_Barrier(MPI_COMM_WORLD);
        if (r > 0 || rank != 0)
            acquire();
        if (r == 0 && rank == 0)
            while (get(TAIL) == 0) /* keep the lock until somebody queued */
                ;
        critical();
        release();
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && get(COUNTER) != size * ROUNDS) {
        errors++;
        fprintf(stderr, "rank 0: counter %d, want %d\n", get(COUNTER), size * ROUNDS);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mcs_lock: OK\n");
    MPI_Finalize();
    return total != 0;
}
