// ranks: 4
//
// ok_master_worker_gather.c: a master that collects one result block per
// worker with MPI_ANY_SOURCE receives of the largest block size and files
// each block by its source and length (MPI_Get_count): workers send
// blocks of different lengths (the last one the remainder), all of
// MPI_DOUBLE, each no longer than the receive's count. Whichever worker
// is first, its block fits: the order is the program's to handle
// (MPI-4.1 §3.5; a shorter message is legal, §3.2.4).
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

enum { N = 22, RESULT = 5 };

static int chunk(int w, int workers)
{
    return w < workers ? N / workers : N - (workers - 1) * (N / workers);
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int workers = size - 1, most = chunk(workers, workers);
    if (rank == 0) {
        double all[N], block[N];
        MPI_Status st;
        for (int i = 0; i < workers; i++) {
            int n;
            MPI_Recv(block, most, MPI_DOUBLE, MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            int w = st.MPI_SOURCE, at = (w - 1) * (N / workers);
            if (n != chunk(w, workers))
                errors++;
            for (int k = 0; k < n; k++)
                all[at + k] = block[k];
        }
        for (int k = 0; k < N; k++)
            if (all[k] != 2.0 * k)
                errors++;
        if (errors)
            printf("ok_master_worker_gather: %d errors\n", errors);
        else
            printf("ok_master_worker_gather: OK\n");
    } else {
        int n = chunk(rank, workers), at = (rank - 1) * (N / workers);
        double mine[N];
        for (int k = 0; k < n; k++)
            mine[k] = 2.0 * (at + k);
        MPI_Send(mine, n, MPI_DOUBLE, 0, RESULT, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
