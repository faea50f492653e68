// ranks: 6
// flags: --buffering=zero
//
// ok_ring_zero_buffering.c: exchanges that are safe without any system
// buffering (MPI-4.1 §3.5), run under --buffering=zero (every standard
// send synchronous) on 6 ranks (oversubscribed):
//   - a ring shift with MPI_Sendrecv;
//   - a ring shift with the receive posted first (MPI_Irecv, MPI_Send,
//     MPI_Wait);
//   - head-to-head pairs ordered by parity: even ranks send then
//     receive, odd ranks receive then send (MPI_Send / MPI_Recv);
//   - a broadcast before point-to-point traffic in the same order on every
//     rank (the safe form of bug_deadlock_bcast_send.c: rank 1 joins the
//     MPI_Bcast before it sends to rank 0).
// Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

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
    int rank, size, total, out, in;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    out = rank;
    in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, right, 0, &in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in == left, "rank %d sendrecv: %d\n", rank, in);

    in = -1;
    MPI_Irecv(&in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r);
    MPI_Send(&out, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(in == left, "rank %d irecv first: %d\n", rank, in);

    int partner = rank ^ 1;
    in = -1;
    if (partner < size) {
        if (rank % 2 == 0) {
            MPI_Send(&out, 1, MPI_INT, partner, 2, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&out, 1, MPI_INT, partner, 2, MPI_COMM_WORLD);
        }
        CHECK(in == partner, "rank %d pair: %d\n", rank, in);
    }

    int param = rank == 0 ? 3 : 0, result = 0;
    MPI_Bcast(&param, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Recv(&result, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(result == 42, "result %d\n", result);
    } else if (rank == 1) {
        result = 14 * param;
        MPI_Ssend(&result, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    CHECK(param == 3, "rank %d bcast: %d\n", rank, param);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_ring_zero_buffering: OK\n");
    MPI_Finalize();
    return total != 0;
}
