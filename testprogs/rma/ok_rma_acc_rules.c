// ranks: 3
//
// ok_rma_acc_rules.c: accumulates that MPI-4.1 §12.7.1 and §12.7.2 allow
// together, on windows made with and without accumulate info:
//   1. ranks 1 and 2 add to the same ints of rank 0's byte-addressed
//      window (disp_unit 1), rank 1 with a contiguous MPI_INT array, rank
//      2 with a vector of every other int: the same op and basic type on
//      element-aligned locations are atomic;
//   2. ranks 1 and 2 apply MPI_MAXLOC with MPI_2INT and MPI_DOUBLE_INT to
//      one pair each: the same pair type at the same displacement;
//   3. rank 1 resets a slot with MPI_REPLACE and then adds to it with
//      MPI_SUM in the same epoch: one origin's accumulates of one basic
//      type are ordered by the default accumulate_ordering; rank 2 stores
//      a float and an int next to each other (no shared byte);
//   4. on a window with accumulate_ordering "rar,waw", rank 1 replaces and
//      then adds again (write after write stays ordered); on a window with
//      accumulate_ordering "none", ranks 1 and 2 both add twice to one
//      slot with MPI_SUM (unordered, but atomic: the same op);
//   5. on a window with accumulate_ops "same_op", everybody counts with
//      MPI_Fetch_and_op(MPI_SUM) and reads by adding 0 rather than with
//      MPI_NO_OP.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

enum { N = 8 };

static MPI_Win make(void *mem, MPI_Aint bytes, int unit, const char *key, const char *value)
{
    MPI_Win win;
    MPI_Info info = MPI_INFO_NULL;
    if (key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    MPI_Win_create(mem, bytes, unit, info, MPI_COMM_WORLD, &win);
    if (key)
        MPI_Info_free(&info);
    return win;
}

int main(int argc, char **argv)
{
    int rank, size, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* 1, 2, 3: one window of bytes */
    struct {
        int ints[N];
        int pair[2];
        struct {
            double v;
            int i;
        } dpair;
        int slot;
        float f;
        int after_f;
    } *mem = calloc(1, sizeof *mem);
    MPI_Win win = make(mem, sizeof *mem, 1, NULL, NULL);
    MPI_Aint ints_at = 0, pair_at = (char *)mem->pair - (char *)mem, dpair_at = (char *)&mem->dpair - (char *)mem,
             slot_at = (char *)&mem->slot - (char *)mem, f_at = (char *)&mem->f - (char *)mem,
             after_at = (char *)&mem->after_f - (char *)mem;
    int ones[N], seven = 7, zero = 0, two = 2;
    float half = 0.5f;
    for (int i = 0; i < N; i++)
        ones[i] = 1;
    MPI_Datatype every_other;
    MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int pair[2] = {10 * rank, rank};
    struct {
        double v;
        int i;
    } dpair = {1.5 * rank, rank};
    MPI_Win_fence(0, win);
    if (rank == 1) {
        MPI_Accumulate(ones, N, MPI_INT, 0, ints_at, N, MPI_INT, MPI_SUM, win);
        MPI_Accumulate(pair, 1, MPI_2INT, 0, pair_at, 1, MPI_2INT, MPI_MAXLOC, win);
        MPI_Accumulate(&dpair, 1, MPI_DOUBLE_INT, 0, dpair_at, 1, MPI_DOUBLE_INT, MPI_MAXLOC, win);
        MPI_Accumulate(&zero, 1, MPI_INT, 0, slot_at, 1, MPI_INT, MPI_REPLACE, win);
        MPI_Accumulate(&seven, 1, MPI_INT, 0, slot_at, 1, MPI_INT, MPI_SUM, win);
    } else if (rank == 2) {
        MPI_Accumulate(ones, N / 2, MPI_INT, 0, ints_at, 1, every_other, MPI_SUM, win);
        MPI_Accumulate(pair, 1, MPI_2INT, 0, pair_at, 1, MPI_2INT, MPI_MAXLOC, win);
        MPI_Accumulate(&dpair, 1, MPI_DOUBLE_INT, 0, dpair_at, 1, MPI_DOUBLE_INT, MPI_MAXLOC, win);
        MPI_Accumulate(&half, 1, MPI_FLOAT, 0, f_at, 1, MPI_FLOAT, MPI_SUM, win);
        MPI_Accumulate(&two, 1, MPI_INT, 0, after_at, 1, MPI_INT, MPI_SUM, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 0) {
        for (int i = 0; i < N; i++)
            CHECK(mem->ints[i] == (i % 2 ? 1 : 2), "rank 0: ints[%d] holds %d\n", i, mem->ints[i]);
        CHECK(mem->pair[0] == 20 && mem->pair[1] == 2, "rank 0: 2INT pair holds %d %d\n", mem->pair[0], mem->pair[1]);
        CHECK(mem->dpair.v == 3.0 && mem->dpair.i == 2, "rank 0: DOUBLE_INT pair holds %g %d\n", mem->dpair.v, mem->dpair.i);
        CHECK(mem->slot == 7, "rank 0: slot holds %d\n", mem->slot);
        CHECK(mem->f == 0.5f && mem->after_f == 2, "rank 0: float %g, int %d\n", mem->f, mem->after_f);
    }
    MPI_Win_free(&win);
    MPI_Type_free(&every_other);

    /* 4 */
    int *partial = calloc(4, sizeof *partial), *none = calloc(4, sizeof *none);
    MPI_Win wp = make(partial, 4 * sizeof *partial, sizeof *partial, "accumulate_ordering", "rar,waw");
    MPI_Win wn = make(none, 4 * sizeof *none, sizeof *none, "accumulate_ordering", "none");
    MPI_Win_lock_all(0, wp);
    MPI_Win_lock_all(0, wn);
    if (rank != 0) {
        MPI_Accumulate(&zero, 1, MPI_INT, 0, rank, 1, MPI_INT, MPI_REPLACE, wp);
        MPI_Accumulate(&seven, 1, MPI_INT, 0, rank, 1, MPI_INT, MPI_SUM, wp);
        MPI_Accumulate(&seven, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, wn);
        MPI_Accumulate(&two, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, wn);
    }
    MPI_Win_unlock_all(wn);
    MPI_Win_unlock_all(wp);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, wp);
        for (int r = 1; r < size && r < 4; r++)
            CHECK(partial[r] == 7, "rank 0: partial-order slot %d holds %d\n", r, partial[r]);
        MPI_Win_unlock(0, wp);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, wn);
        CHECK(none[0] == 9 * (size - 1), "rank 0: unordered slot holds %d\n", none[0]);
        MPI_Win_unlock(0, wn);
    }
    MPI_Win_free(&wn);
    MPI_Win_free(&wp);

    /* 5 */
    int *counter = calloc(1, sizeof *counter), one = 1, got = -1, seen = -1;
    MPI_Win wc = make(counter, sizeof *counter, sizeof *counter, "accumulate_ops", "same_op");
    MPI_Win_fence(0, wc);
    MPI_Fetch_and_op(&one, &got, MPI_INT, 0, 0, MPI_SUM, wc);
    MPI_Fetch_and_op(&zero, &seen, MPI_INT, 0, 0, MPI_SUM, wc);
    MPI_Win_fence(0, wc);
    CHECK(got >= 0 && got < size, "rank %d: took ticket %d\n", rank, got);
    CHECK(seen > got && seen <= size, "rank %d: saw %d after ticket %d\n", rank, seen, got);
    if (rank == 0)
        CHECK(*counter == size, "rank 0: counter holds %d\n", *counter);
    MPI_Win_free(&wc);

    free(mem);
    free(partial);
    free(none);
    free(counter);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_rma_acc_rules: OK\n");
    MPI_Finalize();
    return total != 0;
}
