// ranks: 3
//
// ok_nasty_lock_mix.c: one-sided communication in passive-target epochs
// that a forcing MPI may reorder, split and delay without changing the
// result, because the program completes each operation before it relies
// on it (MPI-4.1 §12.5.3 lock/unlock, §12.5.4 flush, §12.7 ordering):
//   - MPI_Win_lock(MPI_LOCK_EXCLUSIVE) on the right neighbour: a put of 8
//     ints (split by --nasty), an order-sensitive accumulate sequence to
//     one location (MPI_REPLACE, MPI_SUM, then MPI_Get_accumulate with
//     MPI_NO_OP, which must see both: accumulates from one origin to one
//     location keep their order, §12.7.2), MPI_Win_unlock;
//   - MPI_Win_lock_all: the same origin buffer put twice to two places
//     with MPI_Win_flush_local in between (after which the buffer may be
//     reused), a get of what the first epoch wrote (after a barrier that
//     orders it after the neighbour's unlock), a 6-element get read after
//     MPI_Win_flush, MPI_Fetch_and_op and MPI_Compare_and_swap chains on
//     this rank's own slot at rank 0; MPI_Win_flush_all, MPI_Win_unlock_all.
// Every result is read after the call that completes it. Correct: no
// findings, natively, under mpidbg and under --nasty with every order.
#include <mpi.h>
#include <stdio.h>

enum { N = 64, PUTS = 0, ACC = 8, TWICE = 16, FOP = 32, CAS = 40, GETS = 48 };

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
    int rank, size, total, *mem;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < N; i++)
        mem[i] = -1;
    for (int i = 0; i < 6; i++)
        mem[GETS + i] = 1000 * rank + i;
    for (int r = 0; r < size && r < 8; r++)
        mem[FOP + r] = mem[CAS + r] = 0; /* used at rank 0 */
    MPI_Barrier(MPI_COMM_WORLD);

    /* an exclusive lock on the right neighbour */
    int out[8], v = 10 * rank, five = 5, seen = -1, unused = 0;
    for (int i = 0; i < 8; i++)
        out[i] = 100 * rank + i;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(out, 8, MPI_INT, right, PUTS, 8, MPI_INT, win);
    MPI_Accumulate(&v, 1, MPI_INT, right, ACC, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Accumulate(&five, 1, MPI_INT, right, ACC, 1, MPI_INT, MPI_SUM, win);
    MPI_Get_accumulate(&unused, 1, MPI_INT, &seen, 1, MPI_INT, right, ACC, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Win_unlock(right, win);
    CHECK(seen == 10 * rank + 5, "rank %d: the get-accumulate saw %d, want %d\n", rank, seen, 10 * rank + 5);
    MPI_Barrier(MPI_COMM_WORLD); /* every neighbour's unlock is done */

    /* one epoch on every rank */
    int buf[4], back[8], six[6], old, prev;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 4; i++)
        buf[i] = rank;
    MPI_Put(buf, 4, MPI_INT, right, TWICE, 4, MPI_INT, win);
    MPI_Win_flush_local(right, win);
    for (int i = 0; i < 4; i++)
        buf[i] = rank + 50; /* the first put has read it: free to reuse */
    MPI_Put(buf, 4, MPI_INT, right, TWICE + 4, 4, MPI_INT, win);
    MPI_Get(back, 8, MPI_INT, right, PUTS, 8, MPI_INT, win);
    MPI_Get(six, 6, MPI_INT, left, GETS, 6, MPI_INT, win);
    MPI_Win_flush_all(win);
    for (int i = 0; i < 8; i++)
        CHECK(back[i] == 100 * rank + i, "rank %d: read back %d at %d\n", rank, back[i], i);
    for (int i = 0; i < 6; i++)
        CHECK(six[i] == 1000 * left + i, "rank %d: get element %d is %d\n", rank, i, six[i]);
    /* chains on this rank's own slots at rank 0: each result is read after a flush */
    int one = 1;
    for (int k = 0; k < 5; k++) {
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, FOP + rank, MPI_SUM, win);
        MPI_Win_flush(0, win);
        CHECK(old == k, "rank %d: fetch-and-op %d returned %d\n", rank, k, old);
        int next = k + 1;
        MPI_Compare_and_swap(&next, &k, &prev, MPI_INT, 0, CAS + rank, win);
        MPI_Win_flush(0, win);
        CHECK(prev == k, "rank %d: compare-and-swap %d found %d\n", rank, k, prev);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank's operations on this window are complete */

    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win); /* local reads in an epoch on the own window */
    for (int i = 0; i < 8; i++)
        CHECK(mem[PUTS + i] == 100 * left + i, "rank %d: put element %d is %d\n", rank, i, mem[PUTS + i]);
    CHECK(mem[ACC] == 10 * left + 5, "rank %d: accumulates gave %d\n", rank, mem[ACC]);
    for (int i = 0; i < 4; i++)
        CHECK(mem[TWICE + i] == left && mem[TWICE + 4 + i] == left + 50, "rank %d: reused buffer put %d %d\n", rank,
              mem[TWICE + i], mem[TWICE + 4 + i]);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            CHECK(mem[FOP + r] == 5 && mem[CAS + r] == 5, "rank 0: rank %d's chains ended at %d %d\n", r, mem[FOP + r],
                  mem[CAS + r]);
    MPI_Win_unlock(rank, win);

    MPI_Win_free(&win);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_nasty_lock_mix: OK\n");
    MPI_Finalize();
    return total != 0;
}
