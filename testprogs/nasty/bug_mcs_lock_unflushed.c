// ranks: 4
// flags: --nasty --nasty-seed=1
//
// bug_mcs_lock_unflushed.c: an MCS queue lock (Mellor-Crummey and Scott)
// over MPI-3 one-sided communication, after "Using Advanced MPI" ch. 4.
// One window, one passive-target epoch (MPI_Win_lock_all) for the whole
// run; the queue's tail lives at rank 0 and is swapped with
// MPI_Fetch_and_op(MPI_REPLACE) and reset with MPI_Compare_and_swap; each
// rank's "next" and "locked" fields are in its own part of the window,
// read with MPI_Fetch_and_op(MPI_NO_OP) plus a flush and written with
// MPI_Accumulate(MPI_REPLACE), so that every access is atomic (MPI-4.1
// §12.7.1). Each rank takes the lock ROUNDS times; inside, it checks that
// nobody else is (a count of holders at rank 0) and adds 1 to a counter
// there, which rank 0 checks at the end. In the first round rank 0 keeps
// the lock until somebody has queued behind it, so that the hand-over
// below always happens.
//
// The bug: the acquirer links itself into its predecessor's "next" field
// (the MPI_Accumulate marked below) and never flushes it before waiting
// to be handed the lock. MPI-4.1 §12.5.4: the operation is complete at
// the target only after MPI_Win_flush(pred) (or an unlock) at the origin,
// and MPI may keep it back until then. The predecessor, releasing, finds
// no successor in "next", fails its compare-and-swap on the tail (the
// acquirer is there) and waits for "next" to be set, while the acquirer
// waits for "locked" to be cleared: both spin forever. MPICH sends the
// accumulate at once, so the program works natively and under mpidbg
// without --nasty; with --nasty the operation is held, the acquirer keeps
// polling its own fields, and after --nasty-hold-timeout (1s) mpidbg
// reports rma-unsynchronised at the accumulate (one finding per acquirer
// that waited), then issues it, and the program ends with the right
// count.
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
        MPI_Accumulate(&rank, 1, MPI_INT, pred, NEXT, 1, MPI_INT, MPI_REPLACE, win); // want "rma-unsynchronised" "still held back after 1s while this rank kept calling MPI_"
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
    MPI_Finalize();
    return total != 0;
}
