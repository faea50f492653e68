// ranks: 2
//
// ok_many_pending.c: two ranks swap 40000 particle records of three
// doubles each, one message per record, as a code that posts one
// receive per incoming particle does: every receive is posted first (on
// the record's index as its tag, up to the tag bound every MPI gives),
// then every send, then one MPI_Waitall over the 80000 requests. Each
// record lands where its tag says (MPI-4.1 §3.5: one sender's messages
// with the same tag are not overtaken) and nothing is lost: no finding,
// and no deadlock while MPI moves tens of thousands of messages at once.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { NPART = 40000, TAGS = 32768 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    double(*out)[3] = malloc(sizeof *out * NPART);
    double(*in)[3] = malloc(sizeof *in * NPART);
    MPI_Request *req = malloc(sizeof *req * 2 * NPART);
    MPI_Status *st = malloc(sizeof *st * 2 * NPART);
    for (int i = 0; i < NPART; i++) {
        out[i][0] = rank * NPART + i;
        out[i][1] = -i;
        out[i][2] = 0.5 * i;
    }
    for (int i = 0; i < NPART; i++)
        MPI_Irecv(in[i], 3, MPI_DOUBLE, peer, i % TAGS, MPI_COMM_WORLD, &req[i]);
    for (int i = 0; i < NPART; i++)
        MPI_Isend(out[i], 3, MPI_DOUBLE, peer, i % TAGS, MPI_COMM_WORLD, &req[NPART + i]);
    MPI_Waitall(2 * NPART, req, st);
    int ok = 1;
    for (int i = 0; i < NPART; i++)
        if (in[i][0] != peer * NPART + i || in[i][1] != -i || st[i].MPI_TAG != i % TAGS)
            ok = 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && ok)
        printf("ok_many_pending: OK\n");
    free(out);
    free(in);
    free(req);
    free(st);
    MPI_Finalize();
    return ok ? 0 : 1;
}
