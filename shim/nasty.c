/*
 * The forcing mode (mpidbg run --nasty), after Nasty-MPI (Kowalewski and
 * Fürlinger, Euro-Par 2016): an MPI library may delay every one-sided
 * operation until a synchronisation call requires it, split it into
 * elements, and complete operations in any order the standard allows.
 * This file makes that happen, so that programs which only work because
 * MPICH completes puts at once break under mpidbg, where they can be
 * seen:
 *
 *   hold   mpidbg_nasty_hold keeps a copy of the operation's arguments,
 *          not of its data: a held Put reads its origin buffer when it is
 *          issued, a held Get writes its result buffer then, as a lazy
 *          MPI may (atomicity stage: multi-element operations of one
 *          predefined type become one piece per element);
 *   sync   mpidbg_nasty_sync issues what a synchronisation call requires
 *          (MPI-4.1 §12.5): fence, complete, unlock_all, flush_all,
 *          flush_local_all and MPI_Win_free all of the window's;
 *          unlock, flush, flush_local those to their target; nothing for
 *          lock, lock_all, post, start, wait, test, sync. nasty_order.c
 *          orders and issues them;
 *   hold timeout  an operation still held after --nasty-hold-timeout
 *          while the rank keeps making RMA calls that do not complete it
 *          (spinning on MPI_Win_sync for a flag the operation was to
 *          set somewhere) is reported once per call site
 *          (rma-unsynchronised) and issued, so the program goes on.
 *
 * Contract: hold runs in the wrapper after its checks, sync before the
 * synchronisation call's PMPI call (rma.c), both inside a wrapper
 * (mpidbg_depth > 0), so the PMPI calls made here are not checked again.
 * The mode is off under MPI_THREAD_MULTIPLE (one program order per rank
 * is what it keeps).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nasty.h"

int mpidbg_nasty_on;
struct mpidbg_nasty_cfg mpidbg_nasty_cfg = {
    .order = MPIDBG_NASTY_RANDOM, .split = 1, .flush = 1, .hold_ns = 1000000000, .trace_fd = -1};

/* An operation is reported only after the rank made this many RMA calls
 * since it was held: one call after a long computation is not polling. */
#define MIN_POLLS 16
/* A split operation has at most this many pieces: one element each up
 * to that many elements, then equal runs of elements (each piece costs a
 * PMPI call, a datatype and, in passive epochs, a flush). */
#define MAX_PIECES 64
#define MAX_REPORTED 64

static struct mpidbg_nasty_win *wins;
static uint64_t seq;            /* operations held so far: program order */
static uint64_t polls;          /* RMA calls so far */
static int64_t nheld;           /* operations held now, all windows */
static int64_t deadline;        /* the earliest hold time plus the timeout, INT64_MAX none */
static uint64_t reported[MAX_REPORTED]; /* sites reported: their operations are no longer held */
static int nreported;

/* ---- configuration ---- */

static void warn(const char *var, const char *val, const char *want)
{
    if (mpidbg_world_rank == 0)
        fprintf(stderr, "mpidbg: %s=%s: want %s; using the default\n", var, val, want);
}

static int on_off(const char *var, int def)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return def;
    if (!strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "true"))
        return 1;
    if (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "false"))
        return 0;
    warn(var, v, "on or off");
    return def;
}

/* duration parses "250ms", "50us", "1.5s", "0": nanoseconds, -1 bad. */
static int64_t duration(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v < 0)
        return -1;
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}};
    if (!*end)
        return v == 0 ? 0 : -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].unit))
            return v * units[i].ns > 9e18 ? -1 : (int64_t)(v * units[i].ns);
    return -1;
}

static int64_t duration_env(const char *var, int64_t def)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return def;
    int64_t d = duration(v);
    if (d < 0) {
        warn(var, v, "a duration such as 50us, 250ms or 2s");
        return def;
    }
    return d;
}

void mpidbg_nasty_init(void)
{
    mpidbg_nasty_on = on_off("MPIDBG_NASTY", 0);
    if (!mpidbg_nasty_on)
        return;
    if (mpidbg_mt) {
        mpidbg_nasty_on = 0;
        if (mpidbg_world_rank == 0)
            fprintf(stderr, "mpidbg: --nasty is off: the program runs with MPI_THREAD_MULTIPLE\n");
        return;
    }
    struct mpidbg_nasty_cfg *c = &mpidbg_nasty_cfg;
    static const char *const orders[] = {"random", "reverse", "puts-first", "gets-first", "program"};
    const char *o = getenv("MPIDBG_NASTY_ORDER");
    if (o && *o) {
        size_t i = 0;
        while (i < sizeof orders / sizeof orders[0] && strcmp(o, orders[i]))
            i++;
        if (i < sizeof orders / sizeof orders[0])
            c->order = (int)i;
        else
            warn("MPIDBG_NASTY_ORDER", o, "random, reverse, puts-first, gets-first or program");
    }
    c->split = on_off("MPIDBG_NASTY_SPLIT", 1);
    c->flush = on_off("MPIDBG_NASTY_FLUSH", 1);
    c->delay_us = duration_env("MPIDBG_NASTY_DELAY", 0) / 1000;
    c->hold_ns = duration_env("MPIDBG_NASTY_HOLD_TIMEOUT", c->hold_ns);
    const char *t = getenv("MPIDBG_NASTY_TRACE");
    if (t && *t) {
        c->trace_fd = open(t, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (c->trace_fd < 0 && mpidbg_world_rank == 0)
            fprintf(stderr, "mpidbg: MPIDBG_NASTY_TRACE=%s: %s\n", t, strerror(errno));
    }
    const char *s = getenv("MPIDBG_NASTY_SEED");
    char *end = NULL;
    unsigned long long seed = s && *s ? strtoull(s, &end, 10) : 0;
    if (!s || !*s || *end) {
        if (s && *s)
            warn("MPIDBG_NASTY_SEED", s, "a decimal number");
        /* not started by mpidbg run: rank 0 picks one for the job and says it */
        seed = ((unsigned long long)mpidbg_mono_ns() ^ ((unsigned long long)getpid() << 32)) % 1000000000000ull;
        PMPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        if (mpidbg_world_rank == 0)
            fprintf(stderr, "mpidbg: --nasty seed %llu (replay: MPIDBG_NASTY_SEED=%llu)\n", seed, seed);
    }
    c->seed = seed;
    mpidbg_nasty_seed_rank(c->seed, mpidbg_world_rank);
    deadline = INT64_MAX;
}

/* ---- windows ---- */

/* win_get finds the forcing mode's state of win, or makes it when wo
 * (the shim's object of a valid window) is given. */
static struct mpidbg_nasty_win *win_get(MPI_Win win, const struct mpidbg_wobj *wo)
{
    struct mpidbg_nasty_win **pp = &wins;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->win == win) {
            struct mpidbg_nasty_win *w = *pp;
            if (pp != &wins) { /* most recent first */
                *pp = w->next;
                w->next = wins;
                wins = w;
            }
            return w;
        }
    if (!wo || win == MPI_WIN_NULL)
        return NULL;
    struct mpidbg_nasty_win *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->win = win;
    w->size = wo->size;
    MPI_Info info;
    if (PMPI_Win_get_info(win, &info) == MPI_SUCCESS) {
        char v[64];
        int len = sizeof v, flag = 0;
#if MPI_VERSION >= 4
        if (PMPI_Info_get_string(info, "accumulate_ordering", &len, v, &flag) == MPI_SUCCESS && flag)
#else
        (void)len;
        if (PMPI_Info_get(info, "accumulate_ordering", (int)sizeof v - 1, v, &flag) == MPI_SUCCESS && flag)
#endif
            w->acc_free = strcmp(v, "none") == 0;
        PMPI_Info_free(&info);
    }
    w->next = wins;
    wins = w;
    return w;
}

static void win_drop(MPI_Win win)
{
    for (struct mpidbg_nasty_win **pp = &wins; *pp; pp = &(*pp)->next)
        if ((*pp)->win == win) {
            struct mpidbg_nasty_win *w = *pp;
            *pp = w->next;
            free(w->locks);
            free(w->q);
            free(w);
            return;
        }
}

static void recount(void)
{
    nheld = 0;
    deadline = INT64_MAX;
    for (struct mpidbg_nasty_win *w = wins; w; w = w->next) {
        nheld += w->n;
        for (int i = 0; i < w->n; i++)
            if (w->q[i].t_ns + mpidbg_nasty_cfg.hold_ns < deadline)
                deadline = w->q[i].t_ns + mpidbg_nasty_cfg.hold_ns;
    }
    if (mpidbg_nasty_cfg.hold_ns <= 0)
        deadline = INT64_MAX;
}

static void issue(struct mpidbg_nasty_win *w, int target, int force_flush)
{
    if (w && w->n) {
        mpidbg_nasty_issue(w, target, force_flush);
        recount();
    }
}

/* ---- the hold timeout ---- */

static int was_reported(uint64_t site)
{
    for (int i = 0; i < nreported; i++)
        if (reported[i] == site)
            return 1;
    return 0;
}

static void report(struct mpidbg_cx *cx, const struct mpidbg_held *h)
{
    if (was_reported(h->site))
        return;
    if (nreported < MAX_REPORTED)
        reported[nreported++] = h->site;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, MPIDBG_F_RMA_UNSYNCHRONISED, NULL);
    ev.call = h->a.call;
    ev.site = h->site;
    ev.val = h->a.target_rank;
    ev.lim = mpidbg_nasty_cfg.hold_ns / 1000000; /* ms: the same on every rank, so reports merge */
    ev.addr2 = (uint64_t)h->a.target_disp;
    ev.related_call = cx->call; /* the call the rank kept making */
    ev.related_site = cx->site;
    ev.related_kind = MPIDBG_REL_KEPT_CALLING;
    mpidbg_report(cx, &ev);
}

/* poll runs at every RMA call, after what the call completes was issued:
 * operations held past the timeout while the rank kept calling are
 * reported and issued, with everything else held for their targets. */
static void poll(struct mpidbg_cx *cx)
{
    polls++;
    if (!nheld || deadline == INT64_MAX)
        return;
    int64_t now = mpidbg_mono_ns();
    if (now < deadline)
        return;
    for (struct mpidbg_nasty_win *w = wins; w; w = w->next)
        for (int i = 0; i < w->n; i++) {
            struct mpidbg_held *h = &w->q[i];
            if (now - h->t_ns < mpidbg_nasty_cfg.hold_ns || polls - h->polls < MIN_POLLS)
                continue;
            report(cx, h);
            mpidbg_nasty_issue(w, h->a.target_rank, 1);
            i = -1; /* the queue changed: look again from its start */
        }
    recount();
}

/* ---- holding ---- */

static int is_builtin(MPI_Datatype t)
{
    return MPIDBG_IS_BUILTIN_TYPE(t);
}

/* keep makes a copy of a derived datatype for a held operation, which
 * outlives the program's handle when the program frees it (allowed while
 * operations use it, MPI-4.1 §5.1.10). Not MPI_Type_dup, which would run
 * the copy callbacks of the program's attributes on the type (§7.7.4):
 * a resized type with the same bounds has the same type map and no
 * attributes. */
static MPI_Datatype keep(struct mpidbg_held *h, MPI_Datatype t, MPI_Datatype orig[3])
{
    if (t == MPI_DATATYPE_NULL || MPIDBG_H(t) == 0 || is_builtin(t)) /* 0: a field the call does not have */
        return t;
    for (int i = 0; i < h->ndup; i++)
        if (orig[i] == t)
            return h->dup[i];
    MPI_Datatype d;
    MPI_Aint lb, extent;
    if (PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS || PMPI_Type_create_resized(t, lb, extent, &d) != MPI_SUCCESS)
        return t;
    if (PMPI_Type_commit(&d) != MPI_SUCCESS) {
        PMPI_Type_free(&d);
        return t;
    }
    orig[h->ndup] = t;
    h->dup[h->ndup++] = d;
    return d;
}

/* pieces returns how many elements each piece of a splittable operation
 * gets (0: not split), and its element extent. Only operations whose
 * sides are all the same predefined type with the same count are split,
 * so that element i lies i extents from each side's start. */
static MPI_Count pieces(const struct mpidbg_rma *a, MPI_Aint *extent)
{
    if (!mpidbg_nasty_cfg.split || a->target_count < 2 || !is_builtin(a->target_type))
        return 0;
    int cls = mpidbg_rma_class(a->call);
    int fetch = a->call == MPIDBG_CALL_MPI_Get_accumulate || a->call == MPIDBG_CALL_MPI_Get_accumulate_c;
    if (cls == MPIDBG_RMA_CLS_FETCH && !fetch)
        return 0; /* Fetch_and_op, Compare_and_swap: one element */
    if (cls != MPIDBG_RMA_CLS_GET && (a->origin_type != a->target_type || a->origin_count != a->target_count))
        return 0;
    if ((cls == MPIDBG_RMA_CLS_GET || fetch) && (a->result_type != a->target_type || a->result_count != a->target_count))
        return 0;
    MPI_Aint lb;
    if (PMPI_Type_get_extent(a->target_type, &lb, extent) != MPI_SUCCESS || lb != 0 || *extent <= 0)
        return 0;
    return (a->target_count + MAX_PIECES - 1) / MAX_PIECES;
}

/* reserve makes room for n more held operations in w's queue. */
static int reserve(struct mpidbg_nasty_win *w, MPI_Count n)
{
    if (w->n + n <= w->cap)
        return 1;
    MPI_Count cap = w->cap ? 2 * (MPI_Count)w->cap : 16;
    while (cap < w->n + n)
        cap *= 2;
    if (cap > INT32_MAX)
        return 0;
    struct mpidbg_held *q = realloc(w->q, (size_t)cap * sizeof *q);
    if (!q)
        return 0;
    w->q = q;
    w->cap = (int)cap;
    return 1;
}

int mpidbg_nasty_hold(struct mpidbg_cx *cx, const struct mpidbg_rma *a)
{
    struct mpidbg_nasty_win *w = win_get(a->win, cx->wo);
    if (a->request) {
        /* issued now: the accumulates held for its target go first, to keep their order */
        if (w && !w->acc_free && mpidbg_rma_class(a->call) >= MPIDBG_RMA_CLS_ACC) {
            for (int i = 0; i < w->n; i++)
                if (w->q[i].a.target_rank == a->target_rank && w->q[i].cls >= MPIDBG_RMA_CLS_ACC) {
                    issue(w, a->target_rank, 0);
                    break;
                }
        }
        poll(cx);
        return 0;
    }
    /* not held: a call MPI will reject (the checks said so, or no epoch is
     * open for it: MPI says so now, not at a later synchronisation call),
     * no-ops, and the sites already reported */
    if (!w || cx->nfound || a->target_rank == MPI_PROC_NULL || was_reported(cx->site) ||
        !(w->fence || w->start || mpidbg_nasty_passive(w, a->target_rank))) {
        poll(cx);
        return 0;
    }
    MPI_Aint ext = 0;
    MPI_Count per = pieces(a, &ext);
    MPI_Count n = per ? (a->target_count + per - 1) / per : 1;
    int64_t t = mpidbg_mono_ns();
    uint64_t s = ++seq;
    MPI_Datatype orig[3] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    if (!reserve(w, n)) {
        poll(cx);
        return 0; /* out of memory: issue it now */
    }
    for (MPI_Count i = 0; i < n; i++) {
        struct mpidbg_held *h = &w->q[w->n++];
        memset(h, 0, sizeof *h);
        h->a = *a;
        h->seq = s;
        h->site = cx->site;
        h->t_ns = t;
        h->polls = polls;
        h->piece = (int32_t)i;
        h->cls = mpidbg_rma_class(a->call);
        if (per) {
            MPI_Count first = i * per, len = a->target_count - first < per ? a->target_count - first : per;
            MPI_Aint off = (MPI_Aint)first * ext;
            h->piece_off = off;
            h->a.origin = a->origin ? (const char *)a->origin + off : NULL;
            h->a.result = a->result ? (char *)a->result + off : NULL;
            h->a.origin_count = a->origin_count ? len : 0;
            h->a.result_count = a->result_count ? len : 0;
            h->a.target_count = len;
        } else {
            h->a.origin_type = keep(h, a->origin_type, orig);
            h->a.result_type = keep(h, a->result_type, orig);
            h->a.target_type = keep(h, a->target_type, orig);
        }
    }
    nheld += n;
    if (mpidbg_nasty_cfg.hold_ns > 0 && t + mpidbg_nasty_cfg.hold_ns < deadline)
        deadline = t + mpidbg_nasty_cfg.hold_ns;
    poll(cx);
    return 1;
}

/* ---- synchronisation ---- */

void mpidbg_nasty_sync(struct mpidbg_cx *cx, const struct mpidbg_rma_sync *s)
{
    struct mpidbg_nasty_win *w = win_get(s->win, s->call != MPIDBG_CALL_MPI_Win_free ? cx->wo : NULL);
    switch (s->call) {
    case MPIDBG_CALL_MPI_Win_fence:
        issue(w, -1, 0);
        if (w)
            w->fence = !(s->assert_ & MPI_MODE_NOSUCCEED);
        break;
    case MPIDBG_CALL_MPI_Win_complete:
        issue(w, -1, 0);
        if (w)
            w->start = 0;
        break;
    case MPIDBG_CALL_MPI_Win_start:
        if (w)
            w->start = 1;
        break;
    case MPIDBG_CALL_MPI_Win_flush_all:
    case MPIDBG_CALL_MPI_Win_flush_local_all:
        issue(w, -1, 0);
        break;
    case MPIDBG_CALL_MPI_Win_unlock_all:
        issue(w, -1, 0);
        if (w)
            w->lock_all = 0;
        break;
    case MPIDBG_CALL_MPI_Win_free:
        issue(w, -1, 0);
        win_drop(s->win);
        break;
    case MPIDBG_CALL_MPI_Win_flush:
    case MPIDBG_CALL_MPI_Win_flush_local:
        issue(w, s->rank, 0);
        break;
    case MPIDBG_CALL_MPI_Win_unlock:
        issue(w, s->rank, 0);
        if (w && w->locks && s->rank >= 0 && s->rank < w->size && w->locks[s->rank] > 0)
            w->locks[s->rank]--;
        break;
    case MPIDBG_CALL_MPI_Win_lock:
        if (w && s->rank >= 0 && s->rank < w->size) {
            if (!w->locks)
                w->locks = calloc((size_t)w->size, sizeof *w->locks);
            if (w->locks)
                w->locks[s->rank]++;
        }
        break;
    case MPIDBG_CALL_MPI_Win_lock_all:
        if (w)
            w->lock_all = 1;
        break;
    }
    poll(cx);
}

/* At MPI_Finalize: whatever a program never synchronised goes now, in
 * the epoch that is still open. */
void mpidbg_nasty_finalize(struct mpidbg_cx *cx)
{
    (void)cx;
    if (!mpidbg_nasty_on)
        return;
    for (struct mpidbg_nasty_win *w = wins; w; w = w->next)
        mpidbg_nasty_issue(w, -1, 1);
    recount();
    if (mpidbg_nasty_cfg.trace_fd >= 0)
        close(mpidbg_nasty_cfg.trace_fd);
    mpidbg_nasty_cfg.trace_fd = -1;
    mpidbg_nasty_on = 0;
}
