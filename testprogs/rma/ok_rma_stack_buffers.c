// ranks: 2
//
// ok_rma_stack_buffers.c: one-sided operations whose origin and result
// buffers are variables in the stack frames of main and of helpers, used
// correctly: MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate,
// MPI_Fetch_and_op, MPI_Compare_and_swap under MPI_Win_lock, and MPI_Rput
// and MPI_Rget under MPI_Win_lock_all; between each operation and the
// call that completes it (MPI_Win_flush, MPI_Win_unlock, MPI_Wait) the
// program recurses, fills a large local array, formats output through
// stdio, sleeps with nanosleep(2) on a variable next to the buffers and
// stores to the buffers' neighbours; it touches a buffer only after the
// completing call (MPI-4.1 §12.3, §12.5).
// Correct: must produce no findings, also under --nasty (the harness runs
// it a second time so), where MPI moves the data inside the completing
// call.
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static FILE *sink;

static long depth_sum(int n, long acc)
{
    volatile char pad[80];
    pad[n % 80] = (char)n;
    if (n == 0)
        return acc;
    return depth_sum(n - 1, acc + n) + pad[n % 80] - pad[n % 80];
}

static void busy(int rank, int step)
{
    double a[4096];
    struct timespec ts = {0, 200000};
    for (int i = 0; i < 4096; i++)
        a[i] = step + i;
    fprintf(sink, "rank %d step %d: %ld %.1f\n", rank, step, depth_sum(150, 0), a[4095]);
    fflush(sink);
    CHECK(nanosleep(&ts, NULL) == 0, "rank %d: nanosleep failed\n", rank);
}

/* get a value and a pair from the peer, reading them after the flush */
static int helper_get(MPI_Win win, int rank, int peer)
{
    int v = -1, neighbour = 0;
    double pair[2] = {0, 0};
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
    MPI_Get(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
    MPI_Get(pair, 2, MPI_DOUBLE, peer, 16, 2, MPI_DOUBLE, win);
    neighbour += 5;
    busy(rank, 1);
    MPI_Win_flush(peer, win);
    CHECK(v == 100 + peer, "rank %d: get %d\n", rank, v);
    CHECK(pair[0] == peer + 0.5 && pair[1] == peer + 0.25, "rank %d: pair %g %g\n", rank, pair[0], pair[1]);
    MPI_Win_unlock(peer, win);
    return v + neighbour;
}

/* atomics on the peer's counter: fetch-and-op, compare-and-swap,
 * accumulate and get-accumulate, each result read after the flush */
static void helper_atomics(MPI_Win win, int rank, int peer)
{
    long one = 1, old = -1, cmp = 1000, swap = 2000, prev = -1, add = 3, before = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, peer, 32, MPI_SUM, win);
    busy(rank, 2);
    MPI_Win_flush(peer, win);
    CHECK(old >= 1000, "rank %d: fetch_and_op old %ld\n", rank, old);
    MPI_Compare_and_swap(&swap, &cmp, &prev, MPI_LONG, peer, 40, win);
    busy(rank, 3);
    MPI_Win_flush(peer, win);
    CHECK(prev == 1000 || prev == 2000, "rank %d: compare_and_swap old %ld\n", rank, prev);
    MPI_Accumulate(&add, 1, MPI_LONG, peer, 32, 1, MPI_LONG, MPI_SUM, win);
    MPI_Get_accumulate(&one, 1, MPI_LONG, &before, 1, MPI_LONG, peer, 32, 1, MPI_LONG, MPI_SUM, win);
    busy(rank, 4);
    MPI_Win_unlock(peer, win);
    CHECK(before >= 1004, "rank %d: get_accumulate %ld\n", rank, before);
    one = add = swap = cmp = 0; /* complete: the buffers are the program's again */
}

int main(int argc, char **argv)
{
    int rank, total, peer;
    /* the window, in bytes: an int at 0, two doubles at 16, counters at 32
     * and 40, the put slots at 48 and 52 */
    long mem[8];
    MPI_Win win;
    MPI_Request r[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = rank ^ 1;
    sink = fopen("/dev/null", "w");
    for (int i = 0; i < 8; i++)
        mem[i] = 0;
    *(int *)&mem[0] = 100 + rank;
    ((double *)mem)[2] = rank + 0.5;
    ((double *)mem)[3] = rank + 0.25;
    MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* a put from a variable in main, changed only after the unlock */
    int value = 7 + rank;
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
    MPI_Put(&value, 1, MPI_INT, peer, 48, 1, MPI_INT, win);
    busy(rank, 0);
    MPI_Win_unlock(peer, win);
    value = 3;
    MPI_Barrier(MPI_COMM_WORLD);

    CHECK(helper_get(win, rank, peer) == 105 + peer, "rank %d: helper_get\n", rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    mem[4] = mem[5] = 1000;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    helper_atomics(win, rank, peer);
    MPI_Barrier(MPI_COMM_WORLD);

    /* request-based: Rput from and Rget into main's variables */
    int out = 40 + rank, in = -1;
    MPI_Win_lock_all(0, win);
    MPI_Rput(&out, 1, MPI_INT, peer, 52, 1, MPI_INT, win, &r[0]);
    busy(rank, 5);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    out = 0;
    MPI_Win_flush(peer, win);
    MPI_Rget(&in, 1, MPI_INT, peer, 0, 1, MPI_INT, win, &r[1]);
    busy(rank, 6);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    CHECK(in == 100 + peer, "rank %d: rget %d\n", rank, in);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    CHECK(((int *)mem)[12] == 7 + peer && ((int *)mem)[13] == 40 + peer, "rank %d: window holds %d %d\n", rank,
          ((int *)mem)[12], ((int *)mem)[13]);
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);
    fclose(sink);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_stack_buffers: OK\n");
    MPI_Finalize();
    return total != 0 || value != 3;
}
