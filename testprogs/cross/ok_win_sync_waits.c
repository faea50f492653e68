// ranks: 3
// flags: --deadlock-timeout=300ms
//
// ok_win_sync_waits.c: the correct twin of bug_win_fence_twice.c and
// bug_deadlock_win_free_locked.c. One-sided synchronisation that blocks
// for longer than the deadlock timeout (300 ms) while another rank
// computes, which the wait-for graph must not take for a deadlock:
//   1. a ring halo exchange in fence epochs (MPI-4.1 §12.5.1), the same
//      fences on every rank, the first with MPI_MODE_NOPRECEDE; rank 2
//      computes for 600 ms before its second fence while ranks 0 and 1
//      wait in theirs;
//   2. post-start-complete-wait (§12.5.2): rank 0 exposes its window to
//      ranks 1 and 2 and waits in MPI_Win_wait while rank 2 computes for
//      600 ms before it completes its access epoch;
//   3. passive target (§12.5.3): ranks 1 and 2 add into rank 0's window
//      under exclusive locks, rank 1 computing for 600 ms inside its
//      epoch while rank 2 waits for the lock; every epoch is closed with
//      MPI_Win_unlock before the collective MPI_Win_free (§12.2.5).
// Every value is checked.
// Correct: must produce no findings.
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define N 8

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static double compute(double sec)
{
    struct timespec a, b;
    double x = 0;
    long i = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        x += 1e-9 * (double)(i++ % 1000);
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec) < sec);
    return x;
}

int main(int argc, char **argv)
{
    int bad, rank, size, i, left, one = 1;
    double *win_mem, mine[N], work = 0;
    MPI_Win win;
    MPI_Group world, others, zero;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
    for (i = 0; i < N; i++)
        win_mem[i] = -1;

    // 1. fences, one rank late
    for (i = 0; i < N; i++)
        mine[i] = rank + 0.1 * i;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(mine, N, MPI_DOUBLE, (rank + 1) % size, 0, N, MPI_DOUBLE, win);
    if (rank == 2)
        work += compute(0.6);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    CHECK(win_mem[3] == left + 0.1 * 3, "rank %d: halo %g, want %g\n", rank, win_mem[3], left + 0.1 * 3);

    // 2. post-start-complete-wait, one origin late
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int zr = 0, ors[2] = {1, 2};
    MPI_Group_incl(world, 1, &zr, &zero);
    MPI_Group_incl(world, 2, ors, &others);
    if (rank == 0) {
        for (i = 0; i < N; i++)
            win_mem[i] = 0;
        MPI_Win_post(others, 0, win);
        MPI_Win_wait(win);
        CHECK(win_mem[1] == 1 && win_mem[2] == 2, "rank 0: pscw %g %g\n", win_mem[1], win_mem[2]);
    } else {
        double v = rank;
        if (rank == 2)
            work += compute(0.6);
        MPI_Win_start(zero, 0, win);
        MPI_Put(&v, 1, MPI_DOUBLE, 0, rank, 1, MPI_DOUBLE, win);
        MPI_Win_complete(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    // 3. exclusive locks, one holder slow
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        win_mem[0] = 0;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 0) {
        double add = 1, got = -1;
        if (rank == 2)
            work += compute(0.05); // let rank 1 take the lock first
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&got, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
        MPI_Win_flush(0, win);
        if (rank == 1)
            work += compute(0.6);
        add = got + 1;
        MPI_Put(&add, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(win_mem[0] == 2, "rank 0: counter %g\n", win_mem[0]);
        MPI_Win_unlock(0, win);
    }
    CHECK(work >= 0 && one == 1, "rank %d: work %g\n", rank, work);
    MPI_Group_free(&zero);
    MPI_Group_free(&others);
    MPI_Group_free(&world);
    MPI_Win_free(&win);

    MPI_Allreduce(&errors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && bad == 0)
        printf("ok_win_sync_waits: OK\n");
    MPI_Finalize();
    return bad != 0;
}
