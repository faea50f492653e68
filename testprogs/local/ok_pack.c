// ranks: 2
//
// ok_pack.c: MPI_Pack / MPI_Unpack: rank 0 sizes a buffer with
// MPI_Pack_size, packs a count, that many doubles and a strided column
// (vector type), and sends the packed bytes as MPI_PACKED; rank 1 probes,
// receives the bytes (MPI_Get_count with MPI_PACKED) and unpacks them in
// the same order. Checks everything; frees the type and buffers.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 5

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
    int rank, i, total, n, sz, pos = 0, a, b, c;
    double d[N], m[N][3];
    MPI_Datatype col;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(N, 1, 3, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);

    MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &a);
    MPI_Pack_size(N, MPI_DOUBLE, MPI_COMM_WORLD, &b);
    MPI_Pack_size(1, col, MPI_COMM_WORLD, &c);
    sz = a + b + c;
    char *buf = malloc(sz);

    if (rank == 0) {
        n = N;
        for (i = 0; i < N; i++) {
            d[i] = i * 1.5;
            m[i][0] = m[i][2] = 0;
            m[i][1] = -i;
        }
        MPI_Pack(&n, 1, MPI_INT, buf, sz, &pos, MPI_COMM_WORLD);
        MPI_Pack(d, n, MPI_DOUBLE, buf, sz, &pos, MPI_COMM_WORLD);
        MPI_Pack(&m[0][1], 1, col, buf, sz, &pos, MPI_COMM_WORLD);
        MPI_Send(buf, pos, MPI_PACKED, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Status st;
        int bytes;
        MPI_Probe(0, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_PACKED, &bytes);
        CHECK(bytes <= sz, "rank 1: %d packed bytes > %d\n", bytes, sz);
        MPI_Recv(buf, bytes, MPI_PACKED, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < N; i++)
            m[i][0] = m[i][1] = m[i][2] = 7;
        MPI_Unpack(buf, bytes, &pos, &n, 1, MPI_INT, MPI_COMM_WORLD);
        CHECK(n == N, "rank 1: n = %d\n", n);
        MPI_Unpack(buf, bytes, &pos, d, N, MPI_DOUBLE, MPI_COMM_WORLD);
        MPI_Unpack(buf, bytes, &pos, &m[0][2], 1, col, MPI_COMM_WORLD);
        for (i = 0; i < N; i++) {
            CHECK(d[i] == i * 1.5, "rank 1: d[%d] = %g\n", i, d[i]);
            CHECK(m[i][2] == -i && m[i][1] == 7, "rank 1: column row %d\n", i);
        }
        CHECK(pos == bytes, "rank 1: unpacked %d of %d bytes\n", pos, bytes);
    }

    free(buf);
    MPI_Type_free(&col);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_pack: OK\n");
    MPI_Finalize();
    return total != 0;
}
