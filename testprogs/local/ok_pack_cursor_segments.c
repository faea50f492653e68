// ranks: 3
//
// ok_pack_cursor_segments.c: a particle exchange that packs one message
// per neighbour into one send buffer with a running position cursor,
// posting MPI_Isend for each segment as soon as it is packed (so the
// next MPI_Pack writes after a segment a send still reads); the receiver
// posts one MPI_Irecv per neighbour into segments of one receive buffer
// and unpacks each segment as MPI_Waitany completes it, its cursor
// starting at the segment's offset (so MPI_Unpack reads one segment
// while the receives into the others are pending). The same with
// MPI_Pack_external and MPI_Unpack_external ("external32").
// Follows MPI-4.1 §5.2.1: MPI_Pack writes its output from position on,
// MPI_Unpack reads its input from position on, for the packed size of
// the data only; outbuf/outsize and inbuf/insize name the whole storage.
// No byte a pending send reads is written, no byte a pending receive
// writes is read (§3.7.2).
// Correct: must produce no findings; every rank checks what it unpacks.
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

enum { NP = 6, SEG = 512, ROUNDS = 3 };

typedef struct {
    double x[3];
    int id;
} particle;

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype tmp, ptype;
    int bl[2] = {3, 1};
    MPI_Aint disp[2] = {offsetof(particle, x), offsetof(particle, id)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(2, bl, disp, types, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(particle), &ptype);
    MPI_Type_commit(&ptype);
    MPI_Type_free(&tmp);

    int npeer = size - 1;
    char sbuf[(NP + 1) * SEG], rbuf[(NP + 1) * SEG];
    MPI_Request sreq[NP], rreq[NP];
    for (int round = 0; round < 2 * ROUNDS; round++) {
        int external = round >= ROUNDS;
        for (int k = 0; k < npeer; k++) {
            int src = (rank + 1 + k) % size;
            MPI_Irecv(rbuf + k * SEG, SEG, MPI_PACKED, src, round, MPI_COMM_WORLD, &rreq[k]);
        }
        int pos = 0;
        MPI_Aint xpos = 0;
        for (int k = 0; k < npeer; k++) {
            int dst = (rank + size - 1 - k) % size, n = 1 + (dst + round) % NP;
            particle out[NP];
            for (int i = 0; i < n; i++) {
                out[i].id = rank * 100 + i;
                out[i].x[0] = out[i].x[1] = out[i].x[2] = round + 0.5 * i;
            }
            int start = external ? (int)xpos : pos;
            if (external) { /* basic types: MPICH 4.0's external32 packing fails on struct types */
                int ids[NP];
                double xs[3 * NP];
                for (int i = 0; i < n; i++) {
                    ids[i] = out[i].id;
                    for (int d = 0; d < 3; d++)
                        xs[3 * i + d] = out[i].x[d];
                }
                MPI_Pack_external("external32", &n, 1, MPI_INT, sbuf, sizeof sbuf, &xpos);
                MPI_Pack_external("external32", ids, n, MPI_INT, sbuf, sizeof sbuf, &xpos);
                MPI_Pack_external("external32", xs, 3 * n, MPI_DOUBLE, sbuf, sizeof sbuf, &xpos);
            } else {
                MPI_Pack(&n, 1, MPI_INT, sbuf, sizeof sbuf, &pos, MPI_COMM_WORLD);
                MPI_Pack(out, n, ptype, sbuf, sizeof sbuf, &pos, MPI_COMM_WORLD);
            }
            int end = external ? (int)xpos : pos;
            MPI_Isend(sbuf + start, end - start, MPI_PACKED, dst, round, MPI_COMM_WORLD, &sreq[k]);
        }
        for (int done = 0; done < npeer; done++) {
            int k, n = -1;
            MPI_Status st;
            MPI_Waitany(npeer, rreq, &k, &st);
            particle in[NP];
            if (external) {
                MPI_Aint at = (MPI_Aint)k * SEG;
                MPI_Unpack_external("external32", rbuf, sizeof rbuf, &at, &n, 1, MPI_INT);
                if (n >= 1 && n <= NP) {
                    int ids[NP];
                    double xs[3 * NP];
                    MPI_Unpack_external("external32", rbuf, sizeof rbuf, &at, ids, n, MPI_INT);
                    MPI_Unpack_external("external32", rbuf, sizeof rbuf, &at, xs, 3 * n, MPI_DOUBLE);
                    for (int i = 0; i < n; i++) {
                        in[i].id = ids[i];
                        for (int d = 0; d < 3; d++)
                            in[i].x[d] = xs[3 * i + d];
                    }
                }
            } else {
                int at = k * SEG;
                MPI_Unpack(rbuf, sizeof rbuf, &at, &n, 1, MPI_INT, MPI_COMM_WORLD);
                if (n >= 1 && n <= NP)
                    MPI_Unpack(rbuf, sizeof rbuf, &at, in, n, ptype, MPI_COMM_WORLD);
            }
            if (n != 1 + (rank + round) % NP) {
                errors++;
                continue;
            }
            for (int i = 0; i < n; i++)
                if (in[i].id != st.MPI_SOURCE * 100 + i || in[i].x[2] != round + 0.5 * i)
                    errors++;
        }
        MPI_Status sst[NP];
        MPI_Waitall(npeer, sreq, sst);
    }
    MPI_Type_free(&ptype);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_pack_cursor_segments: OK\n");
    MPI_Finalize();
    return all != 0;
}
