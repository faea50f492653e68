// ranks: 3
//
// ok_nonblocking_coll.c: nonblocking collectives, several in flight at
// once on one communicator with disjoint buffers: MPI_Ibcast,
// MPI_Iallreduce (one of them in place), MPI_Igather, MPI_Ialltoall, then
// one MPI_Waitall; an MPI_Ibarrier completed by an MPI_Test loop; an
// MPI_Ireduce completed by MPI_Wait. Checks all results.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

#define MAXP 8

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
    int rank, size, i, total, flag = 0;
    int b[4], sum = 0, one, inplace[2], g[MAXP], a2a_out[MAXP], a2a_in[MAXP];
    long red = 0, mine;
    MPI_Request r[5];
    MPI_Status st[5];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP)
        MPI_Abort(MPI_COMM_WORLD, 2);

    for (i = 0; i < 4; i++)
        b[i] = rank == 2 % size ? 7 * i : -1;
    one = rank + 1;
    inplace[0] = rank;
    inplace[1] = 2 * rank;
    for (i = 0; i < size; i++) {
        a2a_out[i] = 10 * rank + i;
        a2a_in[i] = -1;
        g[i] = -1;
    }

    MPI_Ibcast(b, 4, MPI_INT, 2 % size, MPI_COMM_WORLD, &r[0]);
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Iallreduce(MPI_IN_PLACE, inplace, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r[2]);
    MPI_Igather(&one, 1, MPI_INT, g, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[3]);
    MPI_Ialltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD, &r[4]);
    MPI_Waitall(5, r, st);

    for (i = 0; i < 4; i++)
        CHECK(b[i] == 7 * i, "rank %d: ibcast b[%d] = %d\n", rank, i, b[i]);
    CHECK(sum == size * (size + 1) / 2, "rank %d: iallreduce %d\n", rank, sum);
    CHECK(inplace[0] == size - 1 && inplace[1] == 2 * (size - 1), "rank %d: in-place iallreduce\n", rank);
    if (rank == 0)
        for (i = 0; i < size; i++)
            CHECK(g[i] == i + 1, "igather g[%d] = %d\n", i, g[i]);
    for (i = 0; i < size; i++)
        CHECK(a2a_in[i] == 10 * i + rank, "rank %d: ialltoall from %d = %d\n", rank, i, a2a_in[i]);

    MPI_Request barrier;
    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    while (!flag)
        MPI_Test(&barrier, &flag, MPI_STATUS_IGNORE);
    CHECK(barrier == MPI_REQUEST_NULL, "rank %d: completed request not MPI_REQUEST_NULL\n", rank);

    MPI_Request rr;
    mine = rank;
    MPI_Ireduce(&mine, &red, 1, MPI_LONG, MPI_SUM, size - 1, MPI_COMM_WORLD, &rr);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    if (rank == size - 1)
        CHECK(red == (long)size * (size - 1) / 2, "ireduce %ld\n", red);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_nonblocking_coll: OK\n");
    MPI_Finalize();
    return total != 0;
}
