/*
 * The forcing mode's completion stage (nasty.h): when a synchronisation
 * call requires held operations, they are issued here in the configured
 * order (random, reverse, puts first, gets first, program), within what
 * MPI-4.1 §12.7 allows: puts and gets have no order between them, the
 * accumulate family keeps program order towards one target (§12.7.2,
 * accumulate_ordering "rar,raw,war,waw" by default). After each
 * operation an MPI_Win_flush in a passive-target epoch (--nasty-flush)
 * and a sleep (--nasty-delay) make the order reach the target.
 *
 * The random order comes from one xorshift64* generator per rank, seeded
 * with splitmix64(seed, world rank) and advanced only by the shuffles, so
 * the same seed and the same program give the same issue order
 * (MPIDBG_NASTY_TRACE writes it).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nasty.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

void mpidbg_nasty_seed_rank(uint64_t seed, int rank)
{
    rng = mpidbg_mix64(seed ^ mpidbg_mix64((uint64_t)(int64_t)rank));
    if (rng == 0)
        rng = 1; /* xorshift's one fixed point */
}

uint64_t mpidbg_nasty_rand(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1dull;
}

/* uniform in [0, n) */
static uint64_t below(uint64_t n)
{
    uint64_t lim = -n % n, r;
    do
        r = mpidbg_nasty_rand();
    while (r < lim);
    return r % n;
}

int mpidbg_nasty_passive(const struct mpidbg_nasty_win *w, int target)
{
    return w->lock_all || (w->locks && target >= 0 && target < w->size && w->locks[target] > 0);
}

static int is_acc(const struct mpidbg_held *h)
{
    return h->cls >= MPIDBG_RMA_CLS_ACC;
}

/* writes first (puts-first), reads first (gets-first) */
static int writes(const struct mpidbg_held *h)
{
    return h->cls == MPIDBG_RMA_CLS_PUT || h->cls == MPIDBG_RMA_CLS_ACC;
}

static int by_seq(const void *x, const void *y)
{
    const struct mpidbg_held *a = *(struct mpidbg_held *const *)x, *b = *(struct mpidbg_held *const *)y;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return a->piece < b->piece ? -1 : a->piece > b->piece;
}

/* order permutes ops (program order on entry) into the order of issue. */
static void order(struct mpidbg_held **ops, int m, int acc_free)
{
    switch (mpidbg_nasty_cfg.order) {
    case MPIDBG_NASTY_PROGRAM:
        return; /* nothing to keep in order either */
    case MPIDBG_NASTY_REVERSE:
        for (int i = 0, j = m - 1; i < j; i++, j--) {
            struct mpidbg_held *t = ops[i];
            ops[i] = ops[j];
            ops[j] = t;
        }
        break;
    case MPIDBG_NASTY_PUTS_FIRST:
    case MPIDBG_NASTY_GETS_FIRST: {
        int want = mpidbg_nasty_cfg.order == MPIDBG_NASTY_PUTS_FIRST;
        struct mpidbg_held **tmp = malloc((size_t)m * sizeof *tmp);
        if (!tmp)
            return;
        int k = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < m; i++)
                if (writes(ops[i]) == (pass == 0 ? want : !want))
                    tmp[k++] = ops[i];
        memcpy(ops, tmp, (size_t)m * sizeof *ops);
        free(tmp);
        break;
    }
    default: /* random: Fisher-Yates */
        for (int i = m - 1; i > 0; i--) {
            int j = (int)below((uint64_t)i + 1);
            struct mpidbg_held *t = ops[i];
            ops[i] = ops[j];
            ops[j] = t;
        }
    }
    if (acc_free)
        return;
    /* The accumulate family towards one target: the places the order gave
     * them stay, the operations in them go back to program order. */
    int *pos = malloc((size_t)m * sizeof *pos);
    struct mpidbg_held **acc = malloc((size_t)m * sizeof *acc);
    char *done = calloc((size_t)m, 1);
    if (pos && acc && done)
        for (int i = 0; i < m; i++) {
            if (done[i] || !is_acc(ops[i]))
                continue;
            int t = ops[i]->a.target_rank, k = 0;
            for (int j = i; j < m; j++)
                if (!done[j] && is_acc(ops[j]) && ops[j]->a.target_rank == t) {
                    done[j] = 1;
                    pos[k] = j;
                    acc[k++] = ops[j];
                }
            qsort(acc, (size_t)k, sizeof *acc, by_seq);
            for (int j = 0; j < k; j++)
                ops[pos[j]] = acc[j];
        }
    free(pos);
    free(acc);
    free(done);
}

/* trace writes one line per issued operation: world rank, program
 * order.piece, call, target rank, target_disp+byte offset of the piece. */
static void trace(const struct mpidbg_held *h)
{
    char line[160];
    int n = snprintf(line, sizeof line, "%d %llu.%d %s %d %lld+%lld\n", mpidbg_world_rank,
                     (unsigned long long)h->seq, (int)h->piece, mpidbg_call_name(h->a.call), h->a.target_rank,
                     (long long)h->a.target_disp, (long long)h->piece_off);
    if (n > 0 && (size_t)n < sizeof line && write(mpidbg_nasty_cfg.trace_fd, line, (size_t)n) < 0)
        mpidbg_nasty_cfg.trace_fd = -1;
}

/* issue_one makes the PMPI call of one held operation. A piece past the
 * first element goes with an hindexed target type that places it
 * piece_off bytes beyond the target displacement: the target's
 * displacement unit is not known here, the byte offset always is. */
static void issue_one(struct mpidbg_held *h)
{
    struct mpidbg_rma a = h->a;
    MPI_Datatype piece = MPI_DATATYPE_NULL;
    if (h->piece_off) {
        MPI_Aint off = h->piece_off;
        if (PMPI_Type_create_hindexed_block(1, (int)a.target_count, &off, a.target_type, &piece) != MPI_SUCCESS ||
            PMPI_Type_commit(&piece) != MPI_SUCCESS)
            return; /* cannot happen with a predefined type; the operation is lost, not mis-placed */
        a.target_type = piece;
        a.target_count = 1;
    }
    if (mpidbg_nasty_cfg.trace_fd >= 0)
        trace(h);
    mpidbg_rma_pmpi(&a); /* an error goes to the window's error handler, as the program's own call would */
    if (piece != MPI_DATATYPE_NULL)
        PMPI_Type_free(&piece);
    for (int i = 0; i < h->ndup; i++)
        PMPI_Type_free(&h->dup[i]);
    h->ndup = 0;
}

void mpidbg_nasty_issue(struct mpidbg_nasty_win *w, int target, int force_flush)
{
    int m = 0;
    for (int i = 0; i < w->n; i++)
        m += target < 0 || w->q[i].a.target_rank == target;
    if (m == 0)
        return;
    struct mpidbg_held **ops = malloc((size_t)m * sizeof *ops);
    if (!ops)
        return;
    m = 0;
    for (int i = 0; i < w->n; i++)
        if (target < 0 || w->q[i].a.target_rank == target)
            ops[m++] = &w->q[i];
    order(ops, m, w->acc_free);
    for (int i = 0; i < m; i++) {
        issue_one(ops[i]);
        int t = ops[i]->a.target_rank;
        if ((mpidbg_nasty_cfg.flush || force_flush) && mpidbg_nasty_passive(w, t))
            PMPI_Win_flush(t, w->win);
        if (mpidbg_nasty_cfg.delay_us > 0)
            usleep((useconds_t)mpidbg_nasty_cfg.delay_us);
        ops[i]->piece = -1; /* issued */
    }
    free(ops);
    int k = 0;
    for (int i = 0; i < w->n; i++)
        if (w->q[i].piece >= 0)
            w->q[k++] = w->q[i];
    w->n = k;
}
