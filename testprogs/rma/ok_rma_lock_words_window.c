// ranks: 3
//
// ok_rma_lock_words_window.c: a distributed hash table whose buckets
// live in one window and whose per-bucket spin locks live in another.
// Every rank opens passive-target epochs on both windows with
// MPI_Win_lock_all and inserts keys into buckets of every rank: it takes
// the bucket's lock word with MPI_Compare_and_swap (0 to its rank + 1)
// and a flush until it wins, reads the bucket with MPI_Get and a flush,
// appends the key, writes the bucket back with MPI_Put and a flush, and
// releases the lock with MPI_Accumulate(MPI_REPLACE, 0) and a flush.
// After a barrier every rank reads all the buckets back and checks that
// each key it inserted is there once.
// Follows MPI-4.1 §12.7.1: the lock words are only ever accessed by
// accumulate-family operations of one basic type, so they are atomic; a
// bucket is read and written only by the rank that holds its lock, and
// each flush completes the Get or Put at the target (§12.5.4) before the
// release is issued, and the next holder's Get is issued after its
// Compare_and_swap saw the lock free. Nothing in §12.7 requires the lock
// word and the data it guards to share a window.
// Correct: must produce no findings. (The lock words are ints: Open MPI
// 4.1's osc rdma component dies natively in mca_btl_vader_emu_acswap at a
// 64-bit MPI_Compare_and_swap between ranks of one host.)
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

enum { BUCKETS = 4, CAP = 48, INSERTS = 24 };

struct bucket {
    int64_t count;
    int64_t keys[CAP];
};

static int rank, size;
static MPI_Win data, locks;

static void acquire(int owner, int b)
{
    int mine = rank + 1, free_word = 0, seen;
    do {
        MPI_Compare_and_swap(&mine, &free_word, &seen, MPI_INT, owner, b, locks);
        MPI_Win_flush(owner, locks);
    } while (seen != 0);
}

static void release(int owner, int b)
{
    int free_word = 0;
    MPI_Accumulate(&free_word, 1, MPI_INT, owner, b, 1, MPI_INT, MPI_REPLACE, locks);
    MPI_Win_flush(owner, locks);
}

static int insert(int64_t key)
{
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    int owner = (int)((h >> 40) % (uint64_t)size), b = (int)((h >> 20) % BUCKETS);
    MPI_Aint disp = (MPI_Aint)(b * sizeof(struct bucket));
    struct bucket bk;
    acquire(owner, b);
    MPI_Get(&bk, (int)sizeof bk, MPI_BYTE, owner, disp, (int)sizeof bk, MPI_BYTE, data);
    MPI_Win_flush(owner, data);
    int ok = bk.count < CAP;
    if (ok) {
        bk.keys[bk.count++] = key;
        MPI_Put(&bk, (int)sizeof bk, MPI_BYTE, owner, disp, (int)sizeof bk, MPI_BYTE, data);
        MPI_Win_flush(owner, data);
    }
    release(owner, b);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct bucket *mine;
    int *words;
    MPI_Win_allocate(BUCKETS * sizeof(struct bucket), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &data);
    MPI_Win_allocate(BUCKETS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &words, &locks);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, data);
    for (int b = 0; b < BUCKETS; b++)
        mine[b].count = 0;
    MPI_Win_unlock(rank, data);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, locks);
    for (int b = 0; b < BUCKETS; b++)
        words[b] = 0;
    MPI_Win_unlock(rank, locks);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, data);
    MPI_Win_lock_all(0, locks);
    int full = 0;
    for (int i = 0; i < INSERTS; i++)
        full += !insert((int64_t)rank * 1000 + i);
    MPI_Win_unlock_all(locks);
    MPI_Win_unlock_all(data);
    MPI_Barrier(MPI_COMM_WORLD);

    /* every key this rank inserted, found once */
    int found[INSERTS] = {0};
    MPI_Win_lock_all(0, data);
    for (int owner = 0; owner < size; owner++) {
        struct bucket all[BUCKETS];
        MPI_Get(all, (int)sizeof all, MPI_BYTE, owner, 0, (int)sizeof all, MPI_BYTE, data);
        MPI_Win_flush(owner, data);
        for (int b = 0; b < BUCKETS; b++)
            for (int64_t k = 0; k < all[b].count; k++)
                if (all[b].keys[k] / 1000 == rank)
                    found[all[b].keys[k] % 1000]++;
    }
    MPI_Win_unlock_all(data);
    int wrong = full;
    for (int i = 0; i < INSERTS; i++)
        wrong += found[i] != 1;
    int any;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(any ? "ok_rma_lock_words_window: FAILED (%d)\n" : "ok_rma_lock_words_window: OK\n", any);
    MPI_Win_free(&locks);
    MPI_Win_free(&data);
    MPI_Finalize();
    return any != 0;
}
