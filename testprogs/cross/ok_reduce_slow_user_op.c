// ranks: 3
//
// ok_reduce_slow_user_op.c: a tally of candidate solutions whose merge is
// expensive. Each rank contributes its best candidates; a user-defined
// operation (MPI_Op_create, not commutative) keeps the better of each
// pair and, standing in for an expensive comparison, waits on an idle
// pipe with poll(2) and sleeps with nanosleep(2) for 1.5 s per call. The
// root combines inside MPI_Reduce for about 3 s while the other ranks,
// whose part was sent, wait in the MPI_Bcast of the result that follows;
// then the same with MPI_Ireduce completed by MPI_Wait. The waits inside
// the function must time out, not fail.
// Follows MPI-4.1 §6.9.5 (a user-defined operation may take as long as
// it likes; it makes no MPI calls) and §6.14 (every rank calls the
// collectives in the same order: the job cannot deadlock).
// Correct: must produce no findings, and must not be ended by the
// deadlock detector (its timeout is shorter than the combining).
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

enum { K = 4 };

static int idle[2];
static int waits_failed;

/* keep the better (lower) score of each pair; slowly */
static void best_of(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    struct pollfd p = {idle[0], POLLIN, 0};
    if (poll(&p, 1, 500) != 0) /* nothing is ever written: a time-out */
        waits_failed++;
    struct timespec ts = {1, 0};
    if (nanosleep(&ts, NULL) != 0)
        waits_failed++;
    const double *a = in;
    double *b = inout;
    for (int i = 0; i < *len; i++)
        if (a[i] < b[i])
            b[i] = a[i];
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (pipe(idle) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Op best;
    MPI_Op_create(best_of, 0, &best);
    double mine[K], result[K];
    for (int i = 0; i < K; i++)
        mine[i] = 100.0 + ((rank + i) % size) - i;
    for (int round = 0; round < 2; round++) {
        if (round == 0) {
            MPI_Reduce(mine, result, K, MPI_DOUBLE, best, 0, MPI_COMM_WORLD);
        } else {
            MPI_Request r;
            MPI_Ireduce(mine, result, K, MPI_DOUBLE, best, 0, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        MPI_Bcast(result, K, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int i = 0; i < K; i++)
            if (result[i] != 100.0 - i)
                errors++;
    }
    errors += waits_failed;
    MPI_Op_free(&best);
    close(idle[0]);
    close(idle[1]);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_reduce_slow_user_op: OK\n");
    MPI_Finalize();
    return all != 0;
}
