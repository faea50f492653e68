// ranks: 5
//
// ok_p2p_modes.c: every kind of point-to-point receive, each with a send
// whose type signature matches, on a ring of 5 ranks (oversubscribed):
//   - MPI_Isend / MPI_Irecv to the right neighbour, MPI_Waitall;
//   - MPI_Sendrecv, then MPI_Sendrecv_replace;
//   - persistent MPI_Send_init / MPI_Recv_init, started twice;
//   - pairs (0,1), (2,3): MPI_Ssend then MPI_Recv on the even rank,
//     MPI_Recv then MPI_Send on the odd one;
//   - MPI_Probe + MPI_Get_count + MPI_Recv, MPI_Mprobe + MPI_Mrecv and
//     MPI_Improbe + MPI_Imrecv from the left neighbour;
//   - wildcards without a race: rank 0 receives with MPI_ANY_SOURCE a tag
//     only rank 4 sends, and with MPI_ANY_TAG from rank 1 (one source:
//     its messages arrive in order, MPI-4.1 §3.5).
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
    int rank, size, total, it, n, flag;
    MPI_Request r[2];
    MPI_Status sts[2];
    MPI_Status st;
    MPI_Message msg;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    // nonblocking
    double dout[2] = {rank, rank + 0.5}, din[2] = {-1, -1};
    MPI_Irecv(din, 2, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(dout, 2, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, sts);
    CHECK(din[0] == left && din[1] == left + 0.5, "rank %d isend: %g %g\n", rank, din[0], din[1]);

    // sendrecv
    int iout = 100 + rank, iin = -1;
    MPI_Sendrecv(&iout, 1, MPI_INT, right, 2, &iin, 1, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(iin == 100 + left, "rank %d sendrecv: %d\n", rank, iin);
    long l = rank;
    MPI_Sendrecv_replace(&l, 1, MPI_LONG, right, 3, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(l == left, "rank %d sendrecv_replace: %ld\n", rank, l);

    // persistent
    short sout, sin;
    MPI_Recv_init(&sin, 1, MPI_SHORT, left, 4, MPI_COMM_WORLD, &r[0]);
    MPI_Send_init(&sout, 1, MPI_SHORT, right, 4, MPI_COMM_WORLD, &r[1]);
    for (it = 0; it < 2; it++) {
        sout = (short)(10 * rank + it);
        sin = -1;
        MPI_Startall(2, r);
        MPI_Waitall(2, r, sts);
        CHECK(sin == 10 * left + it, "rank %d persistent %d: %d\n", rank, it, sin);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);

    // blocking pairs, synchronous on the even side
    int partner = rank ^ 1, v = rank, w = -1;
    if (partner < size) {
        if (rank % 2 == 0) {
            MPI_Ssend(&v, 1, MPI_INT, partner, 5, MPI_COMM_WORLD);
            MPI_Recv(&w, 1, MPI_INT, partner, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&w, 1, MPI_INT, partner, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, partner, 5, MPI_COMM_WORLD);
        }
        CHECK(w == partner, "rank %d pair: %d\n", rank, w);
    }

    // probes
    float fout[3] = {rank, rank + 1.0f, rank + 2.0f}, fin[3] = {0, 0, 0};
    MPI_Isend(fout, 3, MPI_FLOAT, right, 6, MPI_COMM_WORLD, &r[0]);
    MPI_Probe(left, 6, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_FLOAT, &n);
    CHECK(n == 3, "rank %d probe: count %d\n", rank, n);
    MPI_Recv(fin, n, MPI_FLOAT, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(fin[2] == left + 2.0f, "rank %d probe: %g\n", rank, fin[2]);

    MPI_Isend(fout, 2, MPI_FLOAT, right, 7, MPI_COMM_WORLD, &r[0]);
    MPI_Mprobe(left, 7, MPI_COMM_WORLD, &msg, &st);
    MPI_Get_count(&st, MPI_FLOAT, &n);
    MPI_Mrecv(fin, n, MPI_FLOAT, &msg, MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(n == 2 && fin[1] == left + 1.0f, "rank %d mprobe: %d %g\n", rank, n, fin[1]);

    MPI_Isend(&iout, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &r[0]);
    flag = 0;
    while (!flag)
        MPI_Improbe(left, 8, MPI_COMM_WORLD, &flag, &msg, &st);
    MPI_Imrecv(&iin, 1, MPI_INT, &msg, &r[1]);
    MPI_Waitall(2, r, sts);
    CHECK(iin == 100 + left, "rank %d improbe: %d\n", rank, iin);

    // wildcards with a single candidate
    if (rank == 0) {
        MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == size - 1 && w == 9 * (size - 1), "any source: %d from %d\n", w, st.MPI_SOURCE);
        MPI_Recv(&w, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_TAG == 10 && w == 1, "any tag: %d tag %d\n", w, st.MPI_TAG);
        MPI_Recv(&w, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_TAG == 11 && w == 2, "any tag: %d tag %d\n", w, st.MPI_TAG);
    } else if (rank == size - 1) {
        v = 9 * rank;
        MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    } else if (rank == 1) {
        v = 1;
        MPI_Send(&v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
        v = 2;
        MPI_Send(&v, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_p2p_modes: OK\n");
    MPI_Finalize();
    return total != 0;
}
