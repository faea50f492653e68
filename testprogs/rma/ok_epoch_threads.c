// ranks: 3
//
// ok_epoch_threads.c: passive-target epochs of one window opened and
// closed by several threads of a process at once (MPI_THREAD_MULTIPLE).
// In each process one thread per target locks it, puts into the
// target's slot for this origin, and unlocks, many times over, while the
// main thread locks and unlocks its own window around local reads: the
// epochs belong to the process, each on a different target (MPI-4.1
// §12.5.3), opened and closed in any interleaving. Then MPI_Win_free after
// every thread ended. Correct: must produce no findings (the shim keeps
// each window's epochs under its one-sided lock).
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 50
#define WIN 16

static int errors, rank, size;
static MPI_Win win;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);                  \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static void *pusher(void *arg)
{
    int target = (int)(long)arg;
    int *v = malloc(sizeof *v);
    for (int i = 0; i < ROUNDS; i++) {
        *v = 1000 * rank + i;
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
        MPI_Put(v, 1, MPI_INT, target, rank, 1, MPI_INT, win);
        MPI_Win_flush_local(target, win);
        MPI_Win_unlock(target, win);
    }
    free(v);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, total, *mem, t;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size > WIN) {
        if (rank == 0)
            printf("ok_epoch_threads: OK\n"); /* nothing to test */
        MPI_Finalize();
        return 0;
    }
    MPI_Win_allocate(WIN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (t = 0; t < WIN; t++)
        mem[t] = -1;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    pthread_t *th = malloc(sizeof *th * (size_t)size);
    for (t = 0; t < size; t++)
        if (t != rank)
            pthread_create(&th[t], NULL, pusher, (void *)(long)t);
    for (t = 0; t < size; t++)
        if (t != rank)
            pthread_join(th[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (t = 0; t < size; t++)
        CHECK(t == rank || mem[t] == 1000 * t + ROUNDS - 1, "rank %d: slot %d holds %d\n", rank, t, mem[t]);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_free(&win);
    free(th);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_epoch_threads: OK\n");
    MPI_Finalize();
    return total != 0;
}
