// ranks: 3
// flags: --deadlock-timeout=300ms
//
// ok_coll_test_poll.c: the correct twin of bug_coll_test_poll.c, and what
// a rank that polls must not be taken for. The deadlock timeout is short
// (300 ms) and each phase lasts longer (about 800 ms), so a poll taken
// for a wait would be reported.
//   1. Every rank calls MPI_Iallreduce; ranks 0 and 1 poll it with
//      MPI_Test and nothing else, rank 2 computes for 800 ms before it
//      calls the reduction: the pollers wait, rank 2 runs.
//   2. Rank 0 posts MPI_Irecv from rank 1 and computes for 800 ms in
//      slices, calling MPI_Test on the receive after each slice, then
//      sends to rank 1; rank 1 waits in MPI_Recv for that message before
//      it sends the one rank 0 receives; rank 2 waits in MPI_Barrier.
//      Rank 0 polls a request that cannot complete while rank 1 waits for
//      it: correct, because rank 0 computes between its tests (MPI-4.1
//      §3.7.4: MPI_Test is nonblocking and may be called in a loop).
// Every value is checked.
// Correct: must produce no findings.
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
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

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// compute works for about sec seconds (by the clock, not the CPU: the
// ranks share the cores) and returns a checksum.
static double compute(double sec)
{
    double t0 = now(), x = 0;
    long i = 0;
    while (now() - t0 < sec)
        x += 1e-9 * (double)(i++ % 1000);
    return x;
}

int main(int argc, char **argv)
{
    int bad, rank, size, done = 0, msg = -1, reply = -1;
    long polls = 0;
    double work = 0, mine, total = -1;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    // 1. pollers wait for a rank that computes
    mine = 1.0 + rank;
    if (rank == 2)
        work += compute(0.8);
    MPI_Iallreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
    while (!done) {
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        polls++;
    }
    CHECK(total == 6.0, "rank %d: total %g\n", rank, total);

    // 2. a rank that computes while it polls
    if (rank == 0) {
        MPI_Irecv(&reply, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r);
        double t0 = now();
        done = 0;
        while (now() - t0 < 0.8) {
            work += compute(0.005);
            MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        }
        CHECK(!done, "rank 0: the reply came before the request\n");
        msg = 42;
        MPI_Send(&msg, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(reply == 43, "rank 0: reply %d\n", reply);
    } else if (rank == 1) {
        MPI_Recv(&msg, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        reply = msg + 1;
        MPI_Send(&reply, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(work >= 0 && polls > 0, "rank %d: work %g polls %ld\n", rank, work, polls);

    MPI_Allreduce(&errors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && bad == 0)
        printf("ok_coll_test_poll: OK\n");
    MPI_Finalize();
    return bad != 0;
}
