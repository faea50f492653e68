// ranks: 2
//
// ok_stack_buffers.c: nonblocking and persistent operations on buffers in
// the stack frames of main and of a helper, used correctly while the
// program works hard on the stack between the call and its completion:
// deep recursion, a large local array, formatted output through stdio, a
// read(2) and a nanosleep(2) into variables next to the buffers, stores
// to the buffers' neighbours, MPI_Test polling. Each buffer is read or
// written only after MPI_Wait (or MPI_Test with flag true) completed its
// operation (MPI-4.1 §3.7.2, §3.7.3, §3.9); the neighbours are the
// program's at any time.
// Correct: must produce no findings. The stores to the neighbours and the
// frames of the calls land on the pages of the buffers; mpidbg must stay
// silent about them (the buffers' bytes there are watched by debug
// registers, docs/races.md "Stack buffers"), and the system calls must
// not fail.
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static FILE *sink;

/* recursion: every level writes its frame further down the stack */
static long depth_sum(int n, long acc)
{
    volatile char pad[96];
    pad[n % 96] = (char)n;
    if (n == 0)
        return acc + pad[0];
    return depth_sum(n - 1, acc + n) + pad[n % 96] - pad[n % 96];
}

/* a large local array, filled and summed */
static double big_local(int seed)
{
    double a[8192];
    for (int i = 0; i < 8192; i++)
        a[i] = seed + i * 0.5;
    double s = 0;
    for (int i = 0; i < 8192; i += 97)
        s += a[i];
    return s;
}

/* stack work between an operation's start and its completion */
static void busy(int rank, int round)
{
    char line[256];
    unsigned char bytes[64];
    struct timespec ts = {0, 1000000};
    long d = depth_sum(200, 0);
    double b = big_local(round);
    snprintf(line, sizeof line, "rank %d round %d: depth %ld big %.1f\n", rank, round, d, b);
    fputs(line, sink);
    fprintf(sink, "%s", line);
    fflush(sink);
    int fd = open("/dev/zero", O_RDONLY);
    CHECK(fd >= 0 && read(fd, bytes, sizeof bytes) == (ssize_t)sizeof bytes, "rank %d: read failed\n", rank);
    if (fd >= 0)
        close(fd);
    CHECK(nanosleep(&ts, NULL) == 0, "rank %d: nanosleep failed\n", rank);
}

/* a helper with its own buffers: a receive and a send of a few ints */
static void helper_exchange(int rank, int peer, int round)
{
    int in[2] = {-1, -1}, out[2] = {rank, round}, neighbour = 0;
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Irecv(in, 2, MPI_INT, peer, 10, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, 2, MPI_INT, peer, 10, MPI_COMM_WORLD, &r[1]);
    for (int i = 0; i < 100; i++)
        neighbour += i;
    busy(rank, round);
    MPI_Waitall(2, r, st);
    CHECK(in[0] == peer && in[1] == round, "rank %d: helper got %d %d\n", rank, in[0], in[1]);
    out[1] = neighbour; /* the send is complete: the buffer is the program's again */
    in[0] = out[1];
}

/* persistent send and receive from the helper's frame, in a loop */
static void helper_persistent(int rank, int peer)
{
    double sval = 0, rval = 0;
    int counter = 0;
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Send_init(&sval, 1, MPI_DOUBLE, peer, 20, MPI_COMM_WORLD, &r[0]);
    MPI_Recv_init(&rval, 1, MPI_DOUBLE, peer, 20, MPI_COMM_WORLD, &r[1]);
    for (int i = 0; i < 40; i++) {
        sval = rank * 100 + i;
        MPI_Startall(2, r);
        counter++;
        if (i % 8 == 0)
            busy(rank, i);
        MPI_Waitall(2, r, st);
        CHECK(rval == peer * 100 + i, "rank %d: persistent round %d got %g\n", rank, i, rval);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    CHECK(counter == 40, "rank %d: counter %d\n", rank, counter);
}

int main(int argc, char **argv)
{
    int rank, total, peer, flag = 0, polls = 0;
    double buf[4] = {0, 0, 0, 0}, mine[4];
    MPI_Request r[2];
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = rank ^ 1;
    sink = fopen("/dev/null", "w");

    /* main's own buffers, right above its stack pointer */
    for (int i = 0; i < 4; i++)
        mine[i] = rank * 10 + i;
    MPI_Irecv(buf, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(mine, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[1]);
    busy(rank, 0);
    polls++;
    MPI_Waitall(2, r, st);
    CHECK(buf[3] == peer * 10 + 3, "rank %d: main got %g\n", rank, buf[3]);
    mine[0] = -1;

    /* a receive completed by MPI_Test polling; the library fills the
     * buffer inside MPI_Test, which is not the program's access */
    MPI_Irecv(buf, 4, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &r[0]);
    if (rank == 1) {
        busy(rank, 1);
        MPI_Send(mine, 4, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
    } else {
        MPI_Send(mine, 4, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
    }
    while (!flag) {
        polls++;
        MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    }
    CHECK(buf[0] == -1, "rank %d: test loop got %g\n", rank, buf[0]);

    for (int round = 0; round < 3; round++)
        helper_exchange(rank, peer, round);
    helper_persistent(rank, peer);

    fclose(sink);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0 && polls > 0)
        printf("ok_stack_buffers: OK\n");
    MPI_Finalize();
    return total != 0;
}
