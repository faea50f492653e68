// ranks: 2
// cflags: -pthread
//
// ok_tls_buffers.c: a library that keeps its per-thread work space in
// thread-local storage (a 256 KiB __thread array, as code made
// thread-safe by adding __thread to its static buffers does), receives
// ghost blocks into it with MPI_Irecv and sends its boundary from it with
// MPI_Isend, from the main thread and from a second thread
// (MPI_THREAD_MULTIPLE, one tag per thread). The array's pages are the
// pages of the thread's other TLS: errno, and every library's
// thread-local variables.
// Follows MPI-4.1 §3.7.2 (the buffers are not touched before
// MPI_Waitall) and §11.6.1.
// Correct: must produce no findings, and must not crash (a protected page
// under errno or the checker's own thread-local state would end the
// process).
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { WORK = 32768, N = 512, STEPS = 20 };

static __thread double work[WORK];
static __thread int steps_done;

static int exchange(int rank, int tag)
{
    int peer = 1 - rank, errors = 0;
    for (int step = 0; step < STEPS; step++) {
        double *ghost = work, *edge = work + WORK - N;
        for (int i = 0; i < N; i++)
            edge[i] = rank * 1e5 + tag * 1e3 + step + i;
        MPI_Request r[2];
        MPI_Status st[2];
        MPI_Irecv(ghost, N, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(edge, N, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &r[1]);
        errno = 0; /* thread-local, on the pages below the work space */
        steps_done++;
        MPI_Waitall(2, r, st);
        for (int i = 0; i < N; i++)
            if (ghost[i] != peer * 1e5 + tag * 1e3 + step + i) {
                errors++;
                break;
            }
    }
    return errors + (steps_done != STEPS);
}

static int rank;

static void *second(void *arg)
{
    *(int *)arg = exchange(rank, 2);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int errors = 0, errors2 = 0;
    pthread_t t;
    pthread_create(&t, NULL, second, &errors2);
    errors = exchange(rank, 1);
    pthread_join(t, NULL);
    errors += errors2;
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_tls_buffers: OK\n");
    MPI_Finalize();
    return all != 0;
}
