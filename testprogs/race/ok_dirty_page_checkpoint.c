// ranks: 2
//
// ok_dirty_page_checkpoint.c: an incremental checkpoint that finds the
// pages written since the last one the classic way. Before MPI_Init the
// rank installs a SIGSEGV handler; after each checkpoint it makes the
// state read-only with mprotect, and the handler marks a page dirty and
// makes it writable again at its first store. The first page is the
// halo the neighbour fills, left writable (the next checkpoint saves it
// whole). Each step exchanges the halo (MPI_Irecv into the first page,
// MPI_Isend from the last, read-only, page) and updates a few known
// pages while the receive is pending; after MPI_Waitall it checks that
// exactly the pages it wrote are dirty, then checkpoints again.
// Follows MPI-4.1 §3.7.2 (the pending buffers are not touched before
// MPI_Waitall; since MPI-3.0 a send only reads its buffer) and POSIX
// (a handler installed with sigaction, mprotect on its own pages; in the
// handler, where POSIX does not list it as safe, Linux's mprotect is a
// plain system call, as checkpoint libraries rely on).
// Correct: must produce no findings; the handler must see every first
// store to a protected page, and the pages must keep the protection the
// program gave them.
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { PAGES = 16, STEPS = 12 };

static char *state;
static long page;
static volatile int dirty[PAGES];
static volatile int strays;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    char *a = si->si_addr;
    if (a >= state && a < state + PAGES * page) {
        long p = (a - state) / page;
        dirty[p] = 1;
        mprotect(state + p * page, (size_t)page, PROT_READ | PROT_WRITE);
        return;
    }
    strays++;
    signal(sig, SIG_DFL);
}

static void checkpoint(void)
{
    memset((void *)dirty, 0, sizeof dirty);
    mprotect(state + page, (size_t)((PAGES - 1) * page), PROT_READ);
}

int main(int argc, char **argv)
{
    page = sysconf(_SC_PAGESIZE);
    state = mmap(NULL, (size_t)(PAGES * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);

    MPI_Init(&argc, &argv);
    int rank, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    int n = (int)(page / (long)sizeof(double));
    double *halo_in = (double *)state, *halo_out = (double *)(state + (PAGES - 1) * page);
    checkpoint();
    for (int s = 0; s < STEPS; s++) {
        halo_out[0] = rank * 100.0 + s; /* the last page: dirty, writable until the next checkpoint */
        MPI_Request q[2];
        MPI_Status st[2];
        MPI_Irecv(halo_in, n, MPI_DOUBLE, peer, s, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(halo_out, n, MPI_DOUBLE, peer, s, MPI_COMM_WORLD, &q[1]);
        int a = 1 + s % 7, b = 8 + s % 6; /* two interior pages */
        ((double *)(state + a * page))[3] += 1.0;
        ((double *)(state + b * page))[5] += 2.0;
        MPI_Waitall(2, q, st);
        if (halo_in[0] != peer * 100.0 + s)
            errors++;
        for (int p = 1; p < PAGES; p++)
            if (dirty[p] != (p == a || p == b || p == PAGES - 1))
                errors++;
        checkpoint();
    }
    int all;
    errors += strays;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_dirty_page_checkpoint: OK\n");
    mprotect(state, (size_t)(PAGES * page), PROT_READ | PROT_WRITE);
    MPI_Finalize();
    return all != 0;
}
