// ranks: 3
//
// ok_mprobe.c: matched probes: rank 0 takes one message from each other
// rank with MPI_Mprobe(MPI_ANY_SOURCE) + MPI_Get_count + MPI_Mrecv, then
// one more each with MPI_Improbe polling + MPI_Imrecv + MPI_Wait. Checks
// sizes and contents.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
    int rank, size, total, i, j, n, flag;
    MPI_Message msg;
    MPI_Status st;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        for (i = 1; i < size; i++) {
            MPI_Mprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &msg, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            double *buf = malloc((n + 1) * sizeof *buf);
            MPI_Mrecv(buf, n, MPI_DOUBLE, &msg, &st);
            CHECK(msg == MPI_MESSAGE_NULL, "mrecv left the message handle set\n");
            CHECK(n == 2 * st.MPI_SOURCE, "from %d: %d doubles\n", st.MPI_SOURCE, n);
            for (j = 0; j < n; j++)
                CHECK(buf[j] == st.MPI_SOURCE + 0.5 * j, "from %d: buf[%d] = %g\n", st.MPI_SOURCE, j, buf[j]);
            free(buf);
        }
        for (i = 1; i < size; i++) {
            int v = -1;
            flag = 0;
            while (!flag)
                MPI_Improbe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &flag, &msg, &st);
            MPI_Imrecv(&v, 1, MPI_INT, &msg, &r);
            MPI_Wait(&r, &st);
            CHECK(v == -st.MPI_SOURCE, "imrecv from %d: %d\n", st.MPI_SOURCE, v);
        }
    } else {
        double d[8];
        int v = -rank;
        for (j = 0; j < 2 * rank; j++)
            d[j] = rank + 0.5 * j;
        MPI_Send(d, 2 * rank, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_mprobe: OK\n");
    MPI_Finalize();
    return total != 0;
}
