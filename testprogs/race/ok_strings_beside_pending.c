// ranks: 2
//
// ok_strings_beside_pending.c: records whose name sits next to data that
// a nonblocking receive fills. While the receive is pending the program
// measures, searches and prints the name with libc's string functions:
// - a record on the stack, its 8-byte tag right before the two values the
//   receive writes;
// - a table of records in one page-aligned block, the last record's name
//   at the very end of the page, right after the values being received.
// glibc's vectorised strlen, strchr and memchr read whole 16-64 byte
// vectors around the string and ignore the bytes past its end; the
// program itself touches only the names. MPI-4.1 §3.7.2 restricts the
// program's accesses to the receive buffer, which it never makes before
// MPI_Waitall: no finding.
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tagged {
    char tag[8];
    double val[2];
};

struct rec {
    double halo[6];
    char name[16];
};

int main(int argc, char **argv)
{
    int rank, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    struct rec *table = NULL;
    if (posix_memalign((void **)&table, 4096, 4096) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    int last = 4096 / sizeof *table - 1; /* its name ends the page */
    for (int round = 0; round < 4; round++) {
        struct tagged s;
        snprintf(s.tag, sizeof s.tag, "r%d:%d", rank, round);
        snprintf(table[last].name, sizeof table[last].name, "edge-%d-%d", rank, round);
        double out[2] = {rank + round, rank * 2.0}, halo[6];
        for (int i = 0; i < 6; i++)
            halo[i] = rank * 100 + round * 10 + i;
        MPI_Request r[4];
        MPI_Status st[4];
        MPI_Irecv(s.val, 2, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(table[last].halo, 6, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(out, 2, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(halo, 6, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[3]);

        size_t n = strlen(s.tag);
        const char *colon = strchr(s.tag, ':');
        size_t m = strlen(table[last].name);
        const char *dash = memchr(table[last].name, '-', m);
        char line[64];
        snprintf(line, sizeof line, "%s/%s", s.tag, table[last].name);
        if (n < 4 || !colon || m < 8 || !dash || strlen(line) != n + 1 + m)
            ok = 0;

        MPI_Waitall(4, r, st);
        if (s.val[0] != peer + round || table[last].halo[5] != peer * 100 + round * 10 + 5)
            ok = 0;
    }
    free(table);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf(ok ? "ok_strings_beside_pending: OK\n" : "ok_strings_beside_pending: WRONG DATA\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
