// ranks: 4
//
// ok_nbx_sparse_exchange.c: a sparse data exchange in which no rank knows
// who sends to it, by the nonblocking consensus (NBX) that PETSc's
// two-sided setup and many graph codes use: each rank sends its messages
// with MPI_Issend, then loops probing for any source with MPI_Iprobe and
// receiving what it finds from the probed source with the probed count;
// once its own sends have completed (each was received) it enters an
// MPI_Ibarrier, and it stops when the barrier completes. Three rounds
// with different targets (a rank may send to itself, or twice to one
// rank), message sizes and tags. Every value
// received is checked, and each rank checks it got exactly the messages
// addressed to it (counted with an MPI_Reduce_scatter).
// Follows MPI-4.1 §3.4 (a synchronous send completes only once its
// receive has started), §3.8.1 (MPI_Iprobe, MPI_Get_count), §6.12
// (MPI_Ibarrier).
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXTO 3

// targets says whom rank sends to in a round: a pattern no receiver can
// compute without asking the sender.
static int targets(int rank, int size, int round, int to[MAXTO])
{
    int n = 0;
    for (int d = 1; d < size && n < MAXTO; d++)
        if ((rank * 7 + d * 3 + round) % 4 != 0)
            to[n++] = (rank + d * (round + 1)) % size;
    return n;
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int round = 0; round < 3; round++) {
        int tag = 100 + round, to[MAXTO], nto = targets(rank, size, round, to);
        int *out[MAXTO], *expect = calloc(size, sizeof(int)), mine = 0;
        MPI_Request sends[MAXTO], barrier = MPI_REQUEST_NULL;
        MPI_Status statuses[MAXTO];

        for (int i = 0; i < nto; i++) {
            int len = 1 + (rank + to[i] + round) % 5 * 40;
            out[i] = malloc(len * sizeof(int));
            for (int k = 0; k < len; k++)
                out[i][k] = rank * 100000 + round * 1000 + k;
            expect[to[i]]++;
            MPI_Issend(out[i], len, MPI_INT, to[i], tag, MPI_COMM_WORLD, &sends[i]);
        }
        for (int done = 0; !done;) {
            int flag;
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
            if (flag) {
                int len;
                MPI_Get_count(&st, MPI_INT, &len);
                int *in = malloc(len * sizeof(int));
                MPI_Recv(in, len, MPI_INT, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (len != 1 + (st.MPI_SOURCE + rank + round) % 5 * 40)
                    errors++;
                for (int k = 0; k < len; k++)
                    if (in[k] != st.MPI_SOURCE * 100000 + round * 1000 + k)
                        errors++;
                free(in);
                mine++;
            }
            if (barrier == MPI_REQUEST_NULL) {
                int sent;
                MPI_Testall(nto, sends, &sent, statuses);
                if (sent)
                    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
            } else {
                MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
            }
        }
        // how many each rank should have got: the senders' counts, summed
        int want = -1;
        int *ones = malloc(size * sizeof(int));
        for (int r = 0; r < size; r++)
            ones[r] = 1;
        MPI_Reduce_scatter(expect, &want, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (want != mine)
            errors++;
        for (int i = 0; i < nto; i++)
            free(out[i]);
        free(ones), free(expect);
    }

    MPI_Allreduce(&errors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad ? "ok_nbx_sparse_exchange: %d errors\n" : "ok_nbx_sparse_exchange: OK\n", bad);
    MPI_Finalize();
    return bad != 0;
}
