// ranks: 4
//
// bug_master_worker_truncation.c: workers 1-3 each compute a block of a
// 14-element result and send it to rank 0; the last worker's block holds
// the remainder (6 elements, the others 4). Rank 0 receives the blocks
// with MPI_ANY_SOURCE, sizing the i-th receive for worker i's block, as
// if the results came in rank order. They usually do here (the workers
// start later the higher their rank, 250 ms apart, so that they do on a
// loaded machine too), but nothing orders them: when worker 3's block
// comes first, it arrives at a receive with room for 4 (and mpidbg
// reports that truncation, message-truncated, at the same line).
// Breaks MPI-4.1 §3.2.4 under another legal order: a message longer than
// the receive is an overflow error; with MPI_ANY_SOURCE the message
// matched depends on arrival order (§3.5).
// Expected: message-race at the MPI_Recv (rank 0), an error: with rank
// 3's message first it receives 6 MPI_DOUBLE into room for 4.
// MPI_ERRORS_RETURN keeps the native run going when the bad order does
// happen.
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

enum { N = 14, RESULT = 5 };

static int chunk(int w, int workers)
{
    return w < workers ? N / workers : N - (workers - 1) * (N / workers);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int workers = size - 1;
    if (rank == 0) {
        double all[N] = {0};
        for (int i = 1, at = 0; i <= workers; at += chunk(i, workers), i++) {
            // bug: assumes worker i's block is the i-th to arrive
            int rc = MPI_Recv(all + at, chunk(i, workers), MPI_DOUBLE, MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "message-race" "receives 6 MPI_DOUBLE into room for 4: truncation"
            if (rc != MPI_SUCCESS)
                fprintf(stderr, "bug_master_worker_truncation: block %d truncated\n", i);
        }
        if (all[0] + all[N - 1] < 0)
            fprintf(stderr, "bug_master_worker_truncation: negative sum\n");
    } else {
        struct timespec delay = {0, 250000000L * rank};
        nanosleep(&delay, NULL);
        double mine[N];
        int n = chunk(rank, workers);
        for (int k = 0; k < n; k++)
            mine[k] = rank + 0.5 * k;
        MPI_Send(mine, n, MPI_DOUBLE, 0, RESULT, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
