// ranks: 2
//
// ok_requests.c: request handling at the edges of the rules, all legal:
// MPI_Wait and MPI_Waitall on MPI_REQUEST_NULL entries; MPI_Waitsome and
// MPI_Testall loops; MPI_Request_free on an active send request (the send
// still completes; its buffer is left alone until the end); an MPI_Irecv
// that can never match, cancelled with MPI_Cancel and completed with
// MPI_Wait (MPI_Test_cancelled says so).
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
    int rank, total, i, flag = 0, out[3], in[3], fire = 5, got = -1, never = 0, cancelled = 0;
    MPI_Request r[4], nul = MPI_REQUEST_NULL, fr, cr;
    MPI_Status st[4], s;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;

    MPI_Wait(&nul, &s);

    // Waitall over a mix of real and null requests
    for (i = 0; i < 3; i++) {
        out[i] = 10 * rank + i;
        in[i] = -1;
    }
    r[0] = MPI_REQUEST_NULL;
    MPI_Irecv(in, 3, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[1]);
    r[2] = MPI_REQUEST_NULL;
    MPI_Isend(out, 3, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, st);
    CHECK(in[2] == 10 * peer + 2, "rank %d: waitall in[2] = %d\n", rank, in[2]);

    // Waitsome until both are done
    int left = 2, outcount, idx[2];
    in[0] = -1;
    MPI_Irecv(in, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[1]);
    while (left > 0) {
        MPI_Waitsome(2, r, &outcount, idx, st);
        left -= outcount;
    }
    CHECK(in[0] == 10 * peer, "rank %d: waitsome in[0] = %d\n", rank, in[0]);

    // Testall loop
    in[1] = -1;
    MPI_Irecv(in + 1, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out + 1, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[1]);
    while (!flag)
        MPI_Testall(2, r, &flag, st);
    CHECK(in[1] == 10 * peer + 1, "rank %d: testall in[1] = %d\n", rank, in[1]);

    // fire-and-forget send: freeing an active request is allowed
    if (rank == 0) {
        MPI_Isend(&fire, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &fr);
        MPI_Request_free(&fr);
        CHECK(fr == MPI_REQUEST_NULL, "rank 0: freed request not MPI_REQUEST_NULL\n");
    } else {
        MPI_Recv(&got, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got == 5, "rank 1: fire-and-forget got %d\n", got);
    }

    // a receive nobody will match, cancelled and completed
    MPI_Irecv(&never, 1, MPI_INT, peer, 999, MPI_COMM_WORLD, &cr);
    MPI_Cancel(&cr);
    MPI_Wait(&cr, &s);
    MPI_Test_cancelled(&s, &cancelled);
    CHECK(cancelled, "rank %d: receive not cancelled\n", rank);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_requests: OK\n");
    MPI_Finalize();
    return total != 0;
}
