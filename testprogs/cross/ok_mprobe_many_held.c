// ranks: 3
//
// ok_mprobe_many_held.c: a server takes a batch of 300 variable-length
// work items from each of two clients. It first claims every item with
// MPI_Mprobe (MPI-4.1 §3.8.2: the matched message leaves the matching
// queue and is the program's, named by its MPI_Message handle), sizes
// one buffer for the whole batch with MPI_Get_count, and only then
// receives the 600 held messages with MPI_Mrecv, in the order it claimed
// them. Every item arrives, each client's in its send order (§3.5): no
// finding, however many matched messages the program holds at once.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ITEMS = 300 };

int main(int argc, char **argv)
{
    int rank, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank > 0) {
        int *item = malloc(sizeof *item * ITEMS * 8);
        MPI_Request *req = malloc(sizeof *req * ITEMS);
        MPI_Status *st = malloc(sizeof *st * ITEMS);
        for (int i = 0; i < ITEMS; i++) {
            int len = 1 + (i * 7 + rank) % 8;
            for (int k = 0; k < len; k++)
                item[i * 8 + k] = rank * 100000 + i * 10 + k;
            MPI_Isend(&item[i * 8], len, MPI_INT, 0, 5, MPI_COMM_WORLD, &req[i]);
        }
        MPI_Waitall(ITEMS, req, st);
        free(item);
        free(req);
        free(st);
    } else {
        MPI_Message *msg = malloc(sizeof *msg * 2 * ITEMS);
        int *len = malloc(sizeof *len * 2 * ITEMS), *src = malloc(sizeof *src * 2 * ITEMS);
        int total = 0;
        for (int i = 0; i < 2 * ITEMS; i++) {
            MPI_Status st;
            MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &msg[i], &st);
            MPI_Get_count(&st, MPI_INT, &len[i]);
            src[i] = st.MPI_SOURCE;
            total += len[i];
        }
        int *all = malloc(sizeof *all * total), *at = all, next[3] = {0, 0, 0};
        for (int i = 0; i < 2 * ITEMS; i++) {
            MPI_Mrecv(at, len[i], MPI_INT, &msg[i], MPI_STATUS_IGNORE);
            int n = next[src[i]]++;
            if (len[i] != 1 + (n * 7 + src[i]) % 8 || at[0] != src[i] * 100000 + n * 10 || at[len[i] - 1] != src[i] * 100000 + n * 10 + len[i] - 1)
                ok = 0;
            at += len[i];
        }
        if (next[1] != ITEMS || next[2] != ITEMS)
            ok = 0;
        free(all);
        free(msg);
        free(len);
        free(src);
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && ok)
        printf("ok_mprobe_many_held: OK\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
