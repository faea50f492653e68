// ranks: 2
// cflags: -fopenmp
// runs: 10
//
// ok_mt_first_touch_buffers.c: a hybrid particle code whose OpenMP
// threads (4 per rank, MPI_THREAD_MULTIPLE) each own a slab of cells and
// allocate its exchange buffers themselves, inside the parallel region
// ("first touch", so that each buffer lives in memory its thread owns:
// glibc gives each thread a malloc arena of its own). A thread's first
// MPI calls are an MPI_Irecv into its fresh heap buffer and an
// MPI_Isend from another, on its own tag; then it frees and reallocates
// the buffers with a new size every step, as a particle count that
// changes would, and keeps small bookkeeping allocations (a step log)
// in the same arena while its receive is pending.
// Follows MPI-4.1 §11.6.1 (threads of one process may call MPI at once
// under MPI_THREAD_MULTIPLE; the tag keeps each thread's messages apart)
// and §3.7.2 (no buffer is touched before its request completes).
// Every thread checks what it received.
// Correct: must produce no findings, and must not crash: the threads'
// first calls into mpidbg's runtime happen while other threads' receive
// buffers in the same kind of arena are watched.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, STEPS = 6, BASE = 200 };

struct log_entry {
    int step, n;
    struct log_entry *next;
};

int main(int argc, char **argv)
{
    int provided, rank, errors = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "ok_mt_first_touch_buffers: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;

#pragma omp parallel num_threads(THREADS) reduction(+ : errors)
    {
        int t = omp_get_thread_num();
        struct log_entry *log = NULL;
        for (int step = 0; step < STEPS; step++) {
            int n = BASE + 37 * ((step + t) % 5); /* the slab's particles this step */
            double *out = malloc(n * sizeof *out), *in = malloc(n * sizeof *in);
            for (int i = 0; i < n; i++)
                out[i] = rank * 1e6 + t * 1e4 + step * 100 + i;
            MPI_Request r[2];
            MPI_Status st[2];
            MPI_Irecv(in, n, MPI_DOUBLE, peer, t, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(out, n, MPI_DOUBLE, peer, t, MPI_COMM_WORLD, &r[1]);
            /* bookkeeping in the same arena while the receive is pending */
            struct log_entry *e = malloc(sizeof *e);
            e->step = step;
            e->n = n;
            e->next = log;
            log = e;
            MPI_Waitall(2, r, st);
            for (int i = 0; i < n; i++)
                if (in[i] != peer * 1e6 + t * 1e4 + step * 100 + i) {
                    errors++;
                    break;
                }
            free(in);
            free(out);
        }
        int steps = 0;
        while (log) {
            struct log_entry *next = log->next;
            steps++;
            free(log);
            log = next;
        }
        if (steps != STEPS)
            errors++;
    }

    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_mt_first_touch_buffers: OK\n");
    MPI_Finalize();
    return all != 0;
}
