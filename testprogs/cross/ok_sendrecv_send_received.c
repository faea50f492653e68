// ranks: 3
// flags: --deadlock-timeout=100ms
//
// ok_sendrecv_send_received.c: a pipeline stage (rank 0) passes a small
// token downstream and takes a 64 MiB block from upstream in one
// MPI_Sendrecv; the downstream stage (rank 1) takes the token and waits
// for the stage's next token, which comes after the block; the upstream
// stage (rank 2) sends the block. While the block moves, every rank is
// inside MPI: rank 0 in its MPI_Sendrecv, whose send part rank 1 has
// already received, rank 1 in MPI_Recv from rank 0, rank 2 in MPI_Send
// to rank 0. The token's receive completed, so the send part waits for
// nobody (MPI-4.1 §3.4, §3.10: the send-receive completes when both
// parts have), and the block's transfer is in progress: no deadlock
// however long the copy takes (a short --deadlock-timeout makes it longer
// than the timeout on any machine).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { BLOCK = 64 << 20 };

int main(int argc, char **argv)
{
    int rank, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Status st;
    if (rank == 0) {
        unsigned char *in = malloc(BLOCK);
        long token = 7, next = 8;
        MPI_Sendrecv(&token, 1, MPI_LONG, 1, 1, in, BLOCK, MPI_UNSIGNED_CHAR, 2, 3, MPI_COMM_WORLD, &st);
        for (size_t i = 0; i < BLOCK; i += 4093)
            if (in[i] != (unsigned char)(i * 31))
                ok = 0;
        MPI_Send(&next, 1, MPI_LONG, 1, 2, MPI_COMM_WORLD);
        free(in);
    } else if (rank == 1) {
        long a, b;
        MPI_Recv(&a, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD, &st);
        MPI_Recv(&b, 1, MPI_LONG, 0, 2, MPI_COMM_WORLD, &st);
        ok = a == 7 && b == 8;
    } else if (rank == 2) {
        unsigned char *out = malloc(BLOCK);
        for (size_t i = 0; i < BLOCK; i++)
            out[i] = (unsigned char)(i * 31);
        MPI_Send(out, BLOCK, MPI_UNSIGNED_CHAR, 0, 3, MPI_COMM_WORLD);
        free(out);
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && ok)
        printf("ok_sendrecv_send_received: OK\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
