// ranks: 2
//
// bug_irecv_read_after_name.c: each rank keeps a record of an 8-byte
// name and two values, on the stack and in a page-aligned table. While
// the receive of the values is pending it measures and searches the name
// (correct: glibc's vector loads read past the name into the values, which
// the program does not see), and then was changed to read the first
// value to print a progress line, before MPI_Waitall.
// Breaks MPI-4.1 §3.7.2: the receive buffer must not be accessed until
// the receive completes. The peer sends only after a barrier that
// follows the reads.
// Expected: recv-buffer-access at both reads of a value; the string
// functions' loads before them are not findings and do not hide them.
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tagged {
    char tag[8];
    double val[2];
};

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    struct tagged *table = NULL;
    if (posix_memalign((void **)&table, 4096, 4096) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    struct tagged s, *h = &table[3];
    snprintf(s.tag, sizeof s.tag, "s%d", rank);
    snprintf(h->tag, sizeof h->tag, "h%d", rank);
    double out[2] = {rank, rank + 0.5}, sum = 0;
    s.val[0] = s.val[1] = h->val[0] = h->val[1] = 0;
    MPI_Request r[4];
    MPI_Status st[4];
    MPI_Irecv(s.val, 2, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(h->val, 2, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[1]);
    size_t n = strlen(s.tag) + strlen(h->tag);
    if (strchr(s.tag, 's') && memchr(h->tag, 'h', n))
        sum += s.val[0]; // want "recv-buffer-access"
    sum += h->val[0]; // want "recv-buffer-access"
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(out, 2, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(out, 2, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, st);
    volatile double seen = sum; /* the progress line, left out */
    (void)seen;
    free(table);
    MPI_Finalize();
    return 0;
}
