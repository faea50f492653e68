// ranks: 2
//
// ok_stack_threads.c: stack buffers of threads the program creates
// (MPI_THREAD_MULTIPLE). A worker thread receives into an array on its
// own stack and reads it only after MPI_Wait; then it lends another array
// of its stack to the main thread, which sends it with MPI_Isend and
// completes the send, while the worker keeps making calls (usleep, a
// recursion) whose frames land on that array's first page. Each rank
// posts the receive of its peer's array before it waits for its own send,
// which may be too long for the eager protocol. All legal: MPI-4.1 §3.7.2, §3.7.3 (a buffer
// may be used once its operation completed; other memory is the
// program's), §11.6 (threads).
// Correct: must produce no findings, and no thread may fail or hang: the
// worker's stack page next to the lent array must stay usable for its
// frames and its system calls.
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { LENT = 600 };

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);                  \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

static int rank, peer;
static double *lent;
static int ready, sent;

static long depth(int n)
{
    volatile char pad[64];
    pad[n % 64] = (char)n;
    return n ? depth(n - 1) + pad[n % 64] - pad[n % 64] + 1 : 0;
}

static void *worker(void *arg)
{
    (void)arg;
    double in[2] = {0, 0}, mine[LENT];
    MPI_Request r;
    MPI_Irecv(in, 2, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &r);
    usleep(1000);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(in[0] == peer && in[1] == 2, "rank %d: worker got %g %g\n", rank, in[0], in[1]);
    for (int i = 0; i < LENT; i++)
        mine[i] = rank * 1000 + i;
    lent = mine;
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    long d = 0;
    while (!__atomic_load_n(&sent, __ATOMIC_ACQUIRE)) {
        d += depth(100);
        usleep(100);
    }
    CHECK(d > 0 && mine[LENT - 1] == rank * 1000 + LENT - 1, "rank %d: worker's array changed\n", rank);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, total;
    pthread_t t;
    double out[2], got[LENT];
    MPI_Request r[2];
    MPI_Status st[2];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = rank ^ 1;
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("ok_stack_threads: OK\n"); /* nothing to test */
        MPI_Finalize();
        return 0;
    }
    pthread_create(&t, NULL, worker, NULL);
    out[0] = rank;
    out[1] = 2;
    MPI_Send(out, 2, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD);
    while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
        usleep(100);
    MPI_Irecv(got, LENT, MPI_DOUBLE, peer, 6, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(lent, LENT, MPI_DOUBLE, peer, 6, MPI_COMM_WORLD, &r[1]);
    usleep(20000);
    MPI_Waitall(2, r, st);
    __atomic_store_n(&sent, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    CHECK(got[LENT - 1] == peer * 1000 + LENT - 1, "rank %d: got %g\n", rank, got[LENT - 1]);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_stack_threads: OK\n");
    MPI_Finalize();
    return total != 0;
}
