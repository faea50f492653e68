// ranks: 2
//
// ok_frozen_send_table.c: a code that builds its coefficient tables at
// setup, exchanges them once, then freezes them with mprotect(PROT_READ)
// so that a stray store crashes at once, and keeps sending from them
// every step (MPI_Isend, MPI_Send_init/MPI_Start). One table is frozen
// while a send from it is still pending; one is thawed (PROT_READ |
// PROT_WRITE) for an update in the middle of the run and frozen again.
// After every step each rank reads /proc/self/maps: the tables' pages
// must say what the program last asked for.
// Follows MPI-4.1 §3.7.2 (a pending send buffer may be read; since
// MPI-3.0 a send only reads it, so read-only memory is a valid send
// buffer) and POSIX mprotect.
// Correct: must produce no findings, and the pages must keep the
// protection the program gave them (the access tracker gave a watched
// page its first protection back when the send completed).
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { TABLES = 3, STEPS = 20 };

/* the protection /proc/self/maps gives the page of p: 'w' writable,
 * 'r' read-only, '?' not found */
static char protection(const void *p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512], perms[8], got = '?';
    unsigned long lo, hi, a = (unsigned long)p;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && a >= lo && a < hi)
            got = perms[1] == 'w' ? 'w' : 'r';
    if (f)
        fclose(f);
    return got;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    long page = sysconf(_SC_PAGESIZE);
    size_t n = (size_t)page / sizeof(double);
    double *tab[TABLES];
    char want[TABLES];
    for (int t = 0; t < TABLES; t++) {
        tab[t] = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        for (size_t i = 0; i < n; i++)
            tab[t][i] = rank * 1000.0 + t * 100.0 + (double)i;
        want[t] = 'w';
    }
    static double in[TABLES][4096];

    /* the setup exchange; table 2 is frozen while its send is pending */
    MPI_Request r[TABLES];
    MPI_Status st[TABLES];
    for (int t = 0; t < TABLES; t++)
        MPI_Isend(tab[t], (int)n, MPI_DOUBLE, peer, t, MPI_COMM_WORLD, &r[t]);
    mprotect(tab[2], (size_t)page, PROT_READ);
    want[2] = 'r';
    for (int t = 0; t < TABLES; t++)
        MPI_Recv(in[t], (int)n, MPI_DOUBLE, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(TABLES, r, st);
    mprotect(tab[0], (size_t)page, PROT_READ);
    mprotect(tab[1], (size_t)page, PROT_READ);
    want[0] = want[1] = 'r';

    MPI_Request ps;
    MPI_Send_init(tab[1], (int)n, MPI_DOUBLE, peer, 50, MPI_COMM_WORLD, &ps);
    for (int s = 0; s < STEPS; s++) {
        if (s == STEPS / 2) {
            mprotect(tab[0], (size_t)page, PROT_READ | PROT_WRITE);
            tab[0][1] += 0.5;
            mprotect(tab[0], (size_t)page, PROT_READ);
        }
        MPI_Request q[2];
        MPI_Status qs[2];
        MPI_Isend(tab[0], (int)n, MPI_DOUBLE, peer, 100 + s, MPI_COMM_WORLD, &q[0]);
        MPI_Start(&ps);
        q[1] = ps;
        MPI_Recv(in[0], (int)n, MPI_DOUBLE, peer, 100 + s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(in[1], (int)n, MPI_DOUBLE, peer, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Waitall(2, q, qs);
        double expect = peer * 1000.0 + 1.0 + (s >= STEPS / 2 ? 0.5 : 0.0);
        if (in[0][1] != expect || in[1][2] != peer * 1000.0 + 102.0)
            errors++;
        for (int t = 0; t < TABLES; t++)
            if (protection(tab[t]) != want[t])
                errors++;
    }
    MPI_Request_free(&ps);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_frozen_send_table: OK\n");
    for (int t = 0; t < TABLES; t++)
        munmap(tab[t], (size_t)page);
    MPI_Finalize();
    return all != 0;
}
