// ranks: 3
//
// ok_race_probe_source.c: rank 0 collects one block of partial results
// from each worker; a block is its length followed by the values. The
// first block to arrive seeds the total, whoever sent it (MPI_ANY_SOURCE
// into a buffer of the largest size, status ignored); every further one
// is found with a wildcard MPI_Probe, whose status names the sender and
// the length, and is then received from exactly that sender into a
// buffer of that length. Whichever worker comes
// first, the probe finds the other one's message and the receive from
// the probed source takes it: correct under every order MPI allows
// (MPI-4.1 §3.8.1: a receive from the probed source and tag gets the
// probed message). The receive's source comes from the probe's status,
// not from a fixed rank, so it never waits for a second message.
// Expected: no error (the order is the program's: message-race-info at
// most).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { PARTIAL = 5, MAXN = 64 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        double part[MAXN], total = 0;
        int n = 0;
        MPI_Status st;
        /* the first partial: who sent it does not matter */
        MPI_Recv(part, MAXN, MPI_DOUBLE, MPI_ANY_SOURCE, PARTIAL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        n = (int)part[0];
        for (int i = 1; i <= n && i < MAXN; i++)
            total += part[i];
        for (int left = size - 2; left > 0; left--) {
            /* the next one, whoever it is: the probe says who and how long */
            MPI_Probe(MPI_ANY_SOURCE, PARTIAL, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            if (n > MAXN) {
                fprintf(stderr, "partial of %d values from %d\n", n, st.MPI_SOURCE);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            MPI_Recv(part, n, MPI_DOUBLE, st.MPI_SOURCE, PARTIAL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 1; i < n; i++)
                total += part[i];
        }
        /* worker w sends w values of w: the sum of w*w over the workers */
        double want = 0;
        for (int w = 1; w < size; w++)
            want += (double)w * w;
        if (total != want) {
            fprintf(stderr, "total %g, want %g\n", total, want);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("ok_race_probe_source: OK\n");
    } else {
        double part[MAXN];
        int n = rank < MAXN - 1 ? rank : MAXN - 1;
        part[0] = n;
        for (int i = 1; i <= n; i++)
            part[i] = rank;
        MPI_Send(part, n + 1, MPI_DOUBLE, 0, PARTIAL, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
