// ranks: 3
//
// ok_waitany_or.c: an OR wait that is not a deadlock. Rank 0 posts
// receives for a request from rank 1 and one from rank 2 and waits for
// either with MPI_Waitany. Rank 1 first waits for a greeting from rank 0;
// rank 2 sends its request at once, so the MPI_Waitany completes with rank
// 2's; rank 0 then greets rank 1, which sends its request, and completes
// the other receive with MPI_Wait. (Had rank 0 used MPI_Waitall, an AND
// wait, this would deadlock: see bug_deadlock_waitall.c.) The same with
// MPI_ANY_SOURCE: rank 0's wildcard receive can only be satisfied by rank
// 2, since rank 1 waits for rank 0 first. Rank 0 checks which rank came
// first each time.
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
    int rank, total, idx, req[3] = {0, 0, 0}, hello = 1, v;
    MPI_Request r[2];
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Irecv(&req[1], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&req[2], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
        CHECK(idx == 1 && req[2] == 2, "waitany: index %d, request %d\n", idx, req[2]);
        MPI_Send(&hello, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        CHECK(req[1] == 1, "wait: request %d\n", req[1]);

        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == 2 && v == 20, "any source: %d from %d\n", v, st.MPI_SOURCE);
        MPI_Send(&hello, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &st);
        CHECK(v == 10, "from 1: %d\n", v);
    } else if (rank == 1) {
        MPI_Recv(&hello, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        req[0] = 1;
        MPI_Send(&req[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&hello, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        v = 10;
        MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    } else if (rank == 2) {
        req[0] = 2;
        MPI_Send(&req[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        v = 20;
        MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_waitany_or: OK\n");
    MPI_Finalize();
    return total != 0;
}
