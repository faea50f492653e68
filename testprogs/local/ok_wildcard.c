// ranks: 3
//
// ok_wildcard.c: wildcard receives: rank 0 collects one message from every
// other rank with MPI_ANY_SOURCE (MPI_Recv; a barrier keeps the senders'
// later messages out of these wildcards), then messages of unknown length
// with MPI_Probe(MPI_ANY_SOURCE) + MPI_Get_count, then with
// MPI_Irecv(MPI_ANY_SOURCE) + MPI_Waitany. Each wildcard receive names the
// tag only one sender uses, so which message it takes does not depend on
// timing: no message race (MPI-4.1 §3.5; the racy forms are in
// testprogs/cross). The checks use the status.
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
    int rank, size, i, j, total, v;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        int *seen = calloc(size, sizeof *seen);
        for (i = 1; i < size; i++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 10 * i, MPI_COMM_WORLD, &st);
            CHECK(st.MPI_TAG == 10 * st.MPI_SOURCE && v == 100 * st.MPI_SOURCE, "recv from %d tag %d v %d\n",
                  st.MPI_SOURCE, st.MPI_TAG, v);
            seen[st.MPI_SOURCE]++;
        }
        MPI_Barrier(MPI_COMM_WORLD); // no sender has sent its second message yet
        for (i = 1; i < size; i++) {
            int n;
            MPI_Probe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            CHECK(n == st.MPI_SOURCE, "probe from %d: count %d\n", st.MPI_SOURCE, n);
            int *buf = malloc((n + 1) * sizeof *buf);
            MPI_Recv(buf, n, MPI_INT, st.MPI_SOURCE, 99, MPI_COMM_WORLD, &st);
            for (j = 0; j < n; j++)
                CHECK(buf[j] == st.MPI_SOURCE, "probe from %d: buf[%d] = %d\n", st.MPI_SOURCE, j, buf[j]);
            seen[st.MPI_SOURCE]++;
            free(buf);
        }
        MPI_Request *r = malloc(size * sizeof *r);
        int *got = malloc(size * sizeof *got);
        for (i = 1; i < size; i++)
            MPI_Irecv(&got[i], 1, MPI_INT, MPI_ANY_SOURCE, 5 + i, MPI_COMM_WORLD, &r[i]);
        r[0] = MPI_REQUEST_NULL;
        for (i = 1; i < size; i++) {
            int idx;
            MPI_Waitany(size, r, &idx, &st);
            CHECK(got[idx] == -st.MPI_SOURCE && st.MPI_TAG == 5 + st.MPI_SOURCE, "waitany: %d from %d\n", got[idx], st.MPI_SOURCE);
            seen[st.MPI_SOURCE]++;
        }
        for (i = 1; i < size; i++)
            CHECK(seen[i] == 3, "rank %d seen %d times\n", i, seen[i]);
        free(r);
        free(got);
        free(seen);
    } else {
        int *buf = malloc(rank * sizeof *buf);
        for (j = 0; j < rank; j++)
            buf[j] = rank;
        v = 100 * rank;
        MPI_Send(&v, 1, MPI_INT, 0, 10 * rank, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD); // rank 0 has matched every first message
        MPI_Send(buf, rank, MPI_INT, 0, 99, MPI_COMM_WORLD);
        v = -rank;
        MPI_Send(&v, 1, MPI_INT, 0, 5 + rank, MPI_COMM_WORLD);
        free(buf);
    }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_wildcard: OK\n");
    MPI_Finalize();
    return total != 0;
}
