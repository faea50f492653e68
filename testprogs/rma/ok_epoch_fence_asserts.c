// ranks: 2
//
// ok_epoch_fence_asserts.c: fence epochs with the assertions where they
// are true (MPI-4.1 §12.5.5), next to passive-target epochs. The first
// fence asserts MPI_MODE_NOPRECEDE (nothing came before); puts, a fence,
// gets, and a last fence with MPI_MODE_NOSUCCEED (nothing follows). An
// exclusive-lock epoch between fence phases. A second phase opens with
// MPI_MODE_NOPRECEDE again (the calls since the last fence were in a lock
// epoch, which its unlock completed) and ends with MPI_MODE_NOSTORE |
// MPI_MODE_NOSUCCEED. A trailing MPI_Win_fence(0) that no RMA call
// follows, then MPI_Win_lock_all with a request-based MPI_Rput waited in
// the epoch, and MPI_Win_free after the epochs ended. Correct: must
// produce no findings.
#include <mpi.h>
#include <stdio.h>

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
    int rank, size, i, total, *mem, out[4], in[4], one = 1;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (i = 0; i < N; i++)
        mem[i] = 0;
    for (i = 0; i < 4; i++)
        out[i] = 10 * rank + i;

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(out, 4, MPI_INT, right, 0, 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(in, 4, MPI_INT, left, 0, 4, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    CHECK(mem[3] == 10 * left + 3, "rank %d: mem[3] = %d\n", rank, mem[3]);
    CHECK(in[3] == 10 * ((left + size - 1) % size) + 3, "rank %d: in[3] = %d\n", rank, in[3]); /* left's left put it */

    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Accumulate(&one, 1, MPI_INT, right, 8, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Get(in, 1, MPI_INT, left, 8, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win);
    CHECK(in[0] == 1, "rank %d: left's counter %d\n", rank, in[0]);

    MPI_Win_fence(0, win);
    MPI_Win_lock_all(0, win);
    MPI_Rput(&out[1], 1, MPI_INT, right, 12, 1, MPI_INT, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    CHECK(mem[12] == 10 * left + 1, "rank %d: mem[12] = %d\n", rank, mem[12]);
    MPI_Win_unlock(rank, win);

    MPI_Win_free(&win);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_epoch_fence_asserts: OK\n");
    MPI_Finalize();
    return total != 0;
}
