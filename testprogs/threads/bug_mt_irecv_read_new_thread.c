// ranks: 2
// cflags: -pthread
//
// bug_mt_irecv_read_new_thread.c: each rank hands a computation to a helper
// thread it starts for the job (MPI_THREAD_MULTIPLE). The main thread
// posts MPI_Irecv on MPI_COMM_SELF for the helper's results into a heap
// buffer, starts the helper, whose first MPI call is the MPI_Send of the
// results, joins it, and then reads the results before MPI_Wait.
// Breaks MPI-4.1 §3.7.2 and §3.7.3: the receive buffer belongs to MPI
// until a completion call completes the receive, even after the data
// arrived (the join makes sure it did: correct here by chance).
// Expected: buffer-access-latent at the read (both ranks), with the MPI_Irecv
// as the related location. The helper's first MPI call binds it to the
// shim's runtime while the receive buffer's page is watched: the page
// must be watched again afterwards for the read to be seen.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 64 };

static void *helper(void *arg)
{
    (void)arg;
    double *out = malloc(N * sizeof *out);
    for (int i = 0; i < N; i++)
        out[i] = i * 0.5;
    MPI_Send(out, N, MPI_DOUBLE, 0, 1, MPI_COMM_SELF);
    free(out);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 2);
    double *results = malloc(N * sizeof *results);
    MPI_Request r;
    MPI_Irecv(results, N, MPI_DOUBLE, 0, 1, MPI_COMM_SELF, &r);
    pthread_t t;
    pthread_create(&t, NULL, helper, NULL);
    pthread_join(t, NULL);
    double first = results[3]; // want "buffer-access-latent" "load from the receive buffer .* at offset 24, element \[3\]\(DOUBLE\)"
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (first + results[5] < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    free(results);
    MPI_Finalize();
    return 0;
}
