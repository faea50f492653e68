/* MPI_THREAD_MULTIPLE: four threads per rank exchange messages with the
 * same thread of the other ranks at once, with nonblocking operations,
 * derived types made and freed concurrently, and a communicator per
 * thread. Correct: the shim must report nothing and not crash. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ITERS = 500, WIN = 8 };

static int rank, size;
static MPI_Comm comms[THREADS]; /* duplicated in order: collectives on one communicator do not run concurrently */

static void *work(void *arg)
{
    int t = (int)(long)arg, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Comm c = comms[t];
    double s[WIN], r[WIN];
    for (int it = 0; it < ITERS; it++) {
        MPI_Request q[2 * WIN];
        for (int k = 0; k < WIN; k++) {
            s[k] = it + k;
            MPI_Irecv(&r[k], 1, MPI_DOUBLE, prev, t * WIN + k, MPI_COMM_WORLD, &q[k]);
            MPI_Isend(&s[k], 1, MPI_DOUBLE, next, t * WIN + k, MPI_COMM_WORLD, &q[WIN + k]);
        }
        MPI_Waitall(2 * WIN, q, MPI_STATUSES_IGNORE);
        if (it % 100 == 0) {
            MPI_Datatype v;
            MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &v);
            MPI_Type_commit(&v);
            MPI_Sendrecv(s, 1, v, next, 1000 + t, r, 1, v, prev, 1000 + t, c, MPI_STATUS_IGNORE);
            MPI_Type_free(&v);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("threads: MPI_THREAD_MULTIPLE not provided, skipped\n");
        MPI_Finalize();
        return 0;
    }
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
    for (long i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, work, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < THREADS; i++)
        MPI_Comm_free(&comms[i]);
    MPI_Finalize();
    if (rank == 0)
        printf("threads: done\n");
    return 0;
}
