// ranks: 3
// runs: 3
//
// ok_mt_sendrecv_rpc.c: a server and two clients under
// MPI_THREAD_MULTIPLE (what mpi4py asks for by default). Each client
// makes its calls with MPI_Sendrecv: the request goes to the server and
// the same call waits for the reply, which the server sends only after
// receiving the request; then a block is sent for the server to scale
// and comes back with MPI_Sendrecv_replace. MPI-4.1 §3.10: the send and
// receive parts of a send-receive run as if concurrently, so the server
// receives the request while the client's call still waits. Every type
// matches: no finding, and no hang.
#include <mpi.h>
#include <stdio.h>

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
            MPI_Recv(req, 2, MPI_INT, MPI_ANY_SOURCE, TAG_REQ, MPI_COMM_WORLD, &st);
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
            double ans = 0;
            MPI_Status st;
            MPI_Sendrecv(req, 2, MPI_INT, 0, TAG_REQ, &ans, 1, MPI_DOUBLE, 0, TAG_REP, MPI_COMM_WORLD, &st);
            if (ans != rank * 0.5 + k)
                ok = 0;
        }
        long blk[BLK];
        for (int i = 0; i < BLK; i++)
            blk[i] = rank + i;
        MPI_Status st;
        MPI_Sendrecv_replace(blk, BLK, MPI_LONG, 0, TAG_BLK, 0, TAG_BACK, MPI_COMM_WORLD, &st);
        for (int i = 0; i < BLK; i++)
            if (blk[i] != 10 * (rank + i))
                ok = 0;
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf(ok ? "ok_mt_sendrecv_rpc: OK\n" : "ok_mt_sendrecv_rpc: WRONG DATA\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
