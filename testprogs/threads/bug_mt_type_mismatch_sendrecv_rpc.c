// ranks: 3
//
// bug_mt_type_mismatch_sendrecv_rpc.c: the server and clients of
// ok_mt_sendrecv_rpc.c under MPI_THREAD_MULTIPLE, where client 2 was
// changed to send its requests as two floats; the server receives two
// ints. Each client's call is an MPI_Sendrecv whose reply the server
// sends only after receiving the request.
// Breaks MPI-4.1 §3.3.1: the send's type signature (FLOAT, FLOAT) does
// not match the receive's (INT, INT); both are 8 bytes, so nothing fails.
// Expected: type-mismatch at the server's MPI_Recv, with client 2's
// MPI_Sendrecv as the related site; and no hang.
#include <mpi.h>

enum { ROUNDS = 40, TAG_REQ = 3, TAG_REP = 5, TAG_BLK = 7, TAG_BACK = 9, BLK = 4 };

int main(int argc, char **argv)
{
    int rank, size, provided, ok = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int k = 0; k < ROUNDS * (size - 1); k++) {
            int req[2];
            MPI_Status st;
            MPI_Recv(req, 2, MPI_INT, MPI_ANY_SOURCE, TAG_REQ, MPI_COMM_WORLD, &st); // want "type-mismatch" "MPI_FLOAT"
            double ans = req[0] * 0.5 + req[1];
            MPI_Send(&ans, 1, MPI_DOUBLE, st.MPI_SOURCE, TAG_REP, MPI_COMM_WORLD);
        }
        for (int c = 1; c < size; c++) {
            long blk[BLK];
            MPI_Status st;
            MPI_Recv(blk, BLK, MPI_LONG, c, TAG_BLK, MPI_COMM_WORLD, &st);
            for (int i = 0; i < BLK; i++)
                blk[i] *= 10;
            MPI_Send(blk, BLK, MPI_LONG, c, TAG_BACK, MPI_COMM_WORLD);
        }
    } else {
        for (int k = 0; k < ROUNDS; k++) {
            int req[2] = {rank, k};
            float freq[2] = {(float)rank, (float)k};
            double ans = 0;
            MPI_Status st;
            if (rank == 2)
                MPI_Sendrecv(freq, 2, MPI_FLOAT, 0, TAG_REQ, &ans, 1, MPI_DOUBLE, 0, TAG_REP, MPI_COMM_WORLD, &st); // bug: the server takes ints
            else
                MPI_Sendrecv(req, 2, MPI_INT, 0, TAG_REQ, &ans, 1, MPI_DOUBLE, 0, TAG_REP, MPI_COMM_WORLD, &st);
        }
        long blk[BLK];
        for (int i = 0; i < BLK; i++)
            blk[i] = rank + i;
        MPI_Status st;
        MPI_Sendrecv_replace(blk, BLK, MPI_LONG, 0, TAG_BLK, 0, TAG_BACK, MPI_COMM_WORLD, &st);
        if (blk[0] != 10 * rank)
            ok = 0;
    }
    MPI_Finalize();
    return ok < 0;
}
