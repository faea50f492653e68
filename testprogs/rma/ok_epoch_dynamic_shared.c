// ranks: 2
//
// ok_epoch_dynamic_shared.c: epochs on the two window flavours whose
// memory is not given at creation (MPI-4.1 §12.2.3, §12.2.4). A dynamic
// window: each rank attaches a buffer, the addresses go round with
// MPI_Allgather, and each puts into its neighbour's buffer by address in
// an MPI_Win_lock_all epoch, completed with MPI_Win_flush; detached
// after the epoch. A shared window (MPI_Win_allocate_shared on the
// node): a fence epoch with MPI_Put to the neighbour, then an
// MPI_Win_lock_all epoch in which the ranks store to their own segment
// and load the neighbour's directly, ordered by MPI_Win_sync and a
// barrier (MPI-4.1 §12.7, example 12.21). Both windows are freed after
// their epochs ended. Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, i, total, disp;
    MPI_Win dyn, shm;
    MPI_Comm node;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* dynamic */
    int *buf = malloc(N * sizeof *buf), *src = malloc(N * sizeof *src);
    for (i = 0; i < N; i++) {
        buf[i] = -1;
        src[i] = 1000 * rank + i;
    }
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn);
    MPI_Win_attach(dyn, buf, N * sizeof *buf);
    MPI_Aint mine, *addrs = malloc((size_t)size * sizeof *addrs);
    MPI_Get_address(buf, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_lock_all(0, dyn);
    MPI_Put(src, N, MPI_INT, right, addrs[right], N, MPI_INT, dyn);
    MPI_Win_flush(right, dyn);
    MPI_Win_unlock_all(dyn);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(buf[N - 1] == 1000 * left + N - 1, "rank %d: buf[%d] = %d\n", rank, N - 1, buf[N - 1]);
    MPI_Win_detach(dyn, buf);
    MPI_Win_free(&dyn);

    /* shared */
    int nrank, nsize, *seg, *peer;
    MPI_Aint sz;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    int nright = (nrank + 1) % nsize, nleft = (nrank + nsize - 1) % nsize;
    MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &seg, &shm);
    MPI_Win_shared_query(shm, nleft, &sz, &disp, &peer);
    for (i = 0; i < N; i++)
        seg[i] = -1;
    MPI_Win_fence(0, shm);
    MPI_Put(&src[2], 1, MPI_INT, nright, 0, 1, MPI_INT, shm);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, shm);
    CHECK(seg[0] == 1000 * nleft + 2, "rank %d: seg[0] = %d\n", rank, seg[0]);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, shm);
    seg[1] = 50 + nrank;
    MPI_Win_sync(shm);
    MPI_Barrier(node);
    MPI_Win_sync(shm);
    CHECK(peer[1] == 50 + nleft, "rank %d: left's seg[1] = %d\n", rank, peer[1]);
    MPI_Win_unlock_all(shm);
    MPI_Win_free(&shm);
    MPI_Comm_free(&node);

    free(buf);
    free(src);
    free(addrs);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_epoch_dynamic_shared: OK\n");
    MPI_Finalize();
    return total != 0;
}
