// ranks: 3
//
// bug_pack_over_pending_send.c: the particle exchange of
// ok_pack_cursor_segments.c with one slip: the cursor is reset to 0 for
// every neighbour, as if each message had a buffer of its own, so the
// second neighbour's MPI_Pack writes over the bytes the first
// neighbour's MPI_Isend is still sending.
// Breaks MPI-4.1 §3.7.2: the send buffer must not be modified until the
// nonblocking send completes.
// Expected: buffer-overlap at the second neighbour's two MPI_Pack calls (every
// rank), with the first MPI_Isend as the related location; and, as the
// small first message left when its send started, buffer-access-latent
// at the MPI_Waitall that completes it (its buffer changed meanwhile).
#include <mpi.h>
#include <stdio.h>

enum { N = 8 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char sbuf[1024], rbuf[2][512];
    MPI_Request r[4];
    for (int k = 0; k < 2; k++)
        MPI_Irecv(rbuf[k], 512, MPI_PACKED, (rank + 1 + k) % size, 0, MPI_COMM_WORLD, &r[2 + k]);
    for (int k = 0; k < 2; k++) {
        double x[N];
        for (int i = 0; i < N; i++)
            x[i] = rank + 0.25 * i + k;
        int pos = 0, n = N;
        MPI_Pack(&n, 1, MPI_INT, sbuf, sizeof sbuf, &pos, MPI_COMM_WORLD); // want "buffer-overlap" "outbuf writes memory that the MPI_Isend still in progress reads"
        MPI_Pack(x, N, MPI_DOUBLE, sbuf, sizeof sbuf, &pos, MPI_COMM_WORLD); // want "buffer-overlap" "outbuf writes memory that the MPI_Isend still in progress reads"
        MPI_Isend(sbuf, pos, MPI_PACKED, (rank + size - 1 - k) % size, 0, MPI_COMM_WORLD, &r[k]);
    }
    MPI_Status st[4];
    MPI_Waitall(4, r, st); // want "buffer-access-latent" "the send buffer .* of the MPI_Isend completed here changed while the send was pending"
    MPI_Finalize();
    return 0;
}
