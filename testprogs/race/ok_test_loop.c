// ranks: 2
//
// ok_test_loop.c: rank 0 posts MPI_Irecv into a static buffer and polls it
// with MPI_Test until the flag is true, working meanwhile on other data
// that shares the buffer's memory page (a counter and an array next to it
// in the same struct); only then it reads the buffer. Rank 1 sends a
// little later. Also MPI_Testany and MPI_Testsome loops over two
// receives, and MPI_Waitany. All legal: MPI-4.1 §3.7.3 (a receive buffer
// may be read once a completion call says the receive is complete; other
// memory is the program's at any time).
// Correct: must produce no findings (the accesses to the neighbours are
// false hits of page protection and must stay silent).
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static struct {
    long polls;
    int in[32];
    double work[64];
    int in2[8];
} s;

int main(int argc, char **argv)
{
    int rank, total, flag = 0, idx, outcount, idxs[2];
    MPI_Request r[2];
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        MPI_Irecv(s.in, 32, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
        while (!flag) {
            s.polls++;
            for (int i = 0; i < 64; i++)
                s.work[i] += 0.5 * i;
            MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
        }
        CHECK(s.in[31] == 31 && s.in[0] == 0, "rank 0: in[31] = %d\n", s.in[31]);

        // Testany over two receives, then Waitany for the other
        MPI_Irecv(s.in, 32, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(s.in2, 8, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[1]);
        flag = 0;
        while (!flag) {
            s.polls++;
            s.work[3] *= 0.5;
            MPI_Testany(2, r, &idx, &flag, MPI_STATUS_IGNORE);
        }
        s.polls += idx == 0 ? s.in[1] : s.in2[1];
        MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
        CHECK(s.in[1] == 101 && s.in2[1] == 201, "rank 0: testany %d %d\n", s.in[1], s.in2[1]);

        // Testsome until both are done
        MPI_Irecv(s.in, 32, MPI_INT, 1, 3, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(s.in2, 8, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[1]);
        int left = 2;
        while (left > 0) {
            s.work[7] += 1;
            MPI_Testsome(2, r, &outcount, idxs, st);
            for (int k = 0; k < outcount; k++)
                s.polls += idxs[k] == 0 ? s.in[2] : s.in2[2];
            left -= outcount;
        }
        CHECK(s.in[2] == 302 && s.in2[2] == 402, "rank 0: testsome %d %d\n", s.in[2], s.in2[2]);
    } else {
        int out[32];
        for (int i = 0; i < 32; i++)
            out[i] = i;
        usleep(20000);
        MPI_Send(out, 32, MPI_INT, 0, 0, MPI_COMM_WORLD);
        for (int i = 0; i < 32; i++)
            out[i] = 100 + i;
        usleep(5000);
        MPI_Send(out, 32, MPI_INT, 0, 1, MPI_COMM_WORLD);
        for (int i = 0; i < 8; i++)
            out[i] = 200 + i;
        MPI_Send(out, 8, MPI_INT, 0, 2, MPI_COMM_WORLD);
        for (int i = 0; i < 32; i++)
            out[i] = 300 + i;
        usleep(5000);
        MPI_Send(out, 32, MPI_INT, 0, 3, MPI_COMM_WORLD);
        for (int i = 0; i < 8; i++)
            out[i] = 400 + i;
        MPI_Send(out, 8, MPI_INT, 0, 4, MPI_COMM_WORLD);
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_test_loop: OK\n");
    MPI_Finalize();
    return total != 0;
}
