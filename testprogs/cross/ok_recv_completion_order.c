// ranks: 2
//
// ok_recv_completion_order.c: a block transfer protocol whose receives
// complete in another order than they were posted. Rank 0 sends, on one
// tag, a header (8 ints) then a payload (500 doubles) per block; rank 1
// posts both receives and waits for the payload first, with MPI_Wait,
// then with MPI_Test polling, then through persistent receives started
// in order and completed in reverse. A status message on a second tag
// is received once by a receive with MPI_ANY_TAG posted before an exact
// one, the exact one completed first; once by MPI_Irecv followed by a
// blocking MPI_Recv of the same source and tag, which takes the second
// message, then the MPI_Wait of the first.
// Follows MPI-4.1 §3.5 (of two receives that match a message, the one
// posted first gets it) and §3.7.4 (nonblocking operations may complete
// in any order): every receive gets the message its posting order says,
// with the type it names.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

enum { H = 8, P = 500, BLOCKS = 4, DATA = 7, STATUS = 9 };

static void fill(int b, int *h, double *d)
{
    for (int i = 0; i < H; i++)
        h[i] = b * 10 + i;
    for (int i = 0; i < P; i++)
        d[i] = b + i * 0.25;
}

static int good(int b, const int *h, const double *d)
{
    return h[H - 1] == b * 10 + H - 1 && d[P - 1] == b + (P - 1) * 0.25;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int h[H];
    double d[P];
    long st[2];
    int ok = 1;
    if (rank == 0) {
        for (int b = 0; b < 3 * BLOCKS; b++) {
            fill(b, h, d);
            MPI_Send(h, H, MPI_INT, 1, DATA, MPI_COMM_WORLD);
            MPI_Send(d, P, MPI_DOUBLE, 1, DATA, MPI_COMM_WORLD);
        }
        long a[2] = {1, 2}, c[2] = {3, 4};
        MPI_Send(a, 2, MPI_LONG, 1, STATUS, MPI_COMM_WORLD);
        MPI_Send(c, 2, MPI_LONG, 1, STATUS, MPI_COMM_WORLD);
        MPI_Send(a, 2, MPI_LONG, 1, STATUS, MPI_COMM_WORLD);
        MPI_Send(c, 2, MPI_LONG, 1, STATUS, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Request rh, rd;
        MPI_Status s;
        /* payload first, by MPI_Wait */
        for (int b = 0; b < BLOCKS; b++) {
            MPI_Irecv(h, H, MPI_INT, 0, DATA, MPI_COMM_WORLD, &rh);
            MPI_Irecv(d, P, MPI_DOUBLE, 0, DATA, MPI_COMM_WORLD, &rd);
            MPI_Wait(&rd, &s);
            MPI_Wait(&rh, &s);
            ok &= good(b, h, d);
        }
        /* payload first, by MPI_Test */
        for (int b = BLOCKS; b < 2 * BLOCKS; b++) {
            MPI_Irecv(h, H, MPI_INT, 0, DATA, MPI_COMM_WORLD, &rh);
            MPI_Irecv(d, P, MPI_DOUBLE, 0, DATA, MPI_COMM_WORLD, &rd);
            int flag = 0;
            while (!flag)
                MPI_Test(&rd, &flag, &s);
            MPI_Wait(&rh, &s);
            ok &= good(b, h, d);
        }
        /* persistent receives, completed in reverse */
        MPI_Request p[2];
        MPI_Recv_init(h, H, MPI_INT, 0, DATA, MPI_COMM_WORLD, &p[0]);
        MPI_Recv_init(d, P, MPI_DOUBLE, 0, DATA, MPI_COMM_WORLD, &p[1]);
        for (int b = 2 * BLOCKS; b < 3 * BLOCKS; b++) {
            MPI_Start(&p[0]);
            MPI_Start(&p[1]);
            MPI_Wait(&p[1], &s);
            MPI_Wait(&p[0], &s);
            ok &= good(b, h, d);
        }
        MPI_Request_free(&p[0]);
        MPI_Request_free(&p[1]);
        /* a wildcard receive posted first, the exact one completed first */
        long any[2], exact[2];
        MPI_Request ra, re;
        MPI_Irecv(any, 2, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &ra);
        MPI_Irecv(exact, 2, MPI_LONG, 0, STATUS, MPI_COMM_WORLD, &re);
        MPI_Wait(&re, &s);
        MPI_Wait(&ra, &s);
        ok &= any[0] == 1 && exact[0] == 3;
        /* a blocking receive after a pending one of the same source and tag */
        MPI_Irecv(any, 2, MPI_LONG, 0, STATUS, MPI_COMM_WORLD, &ra);
        MPI_Recv(st, 2, MPI_LONG, 0, STATUS, MPI_COMM_WORLD, &s);
        MPI_Wait(&ra, &s);
        ok &= any[0] == 1 && st[0] == 3;
    }
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Finalize();
    if (!all)
        return 1;
    if (rank == 0)
        printf("ok_recv_completion_order: OK\n");
    return 0;
}
