/*
 * The epoch lifecycle of one-sided communication (MPI-4.1 §12.5): which
 * epochs this process has open on each window, and the calls that break
 * their rules, reported before the call reaches MPI (whose default error
 * handler would abort the job first; with --on-error continue the call
 * then goes on as the program made it). The findings are in
 * checks/epochs.go, the design in docs/epochs.md, the hooks' callers in
 * rma_lifecycle.h.
 *
 * A window's state at this process:
 *   passive target  the targets locked with MPI_Win_lock (and where), an
 *                   MPI_Win_lock_all epoch;
 *   active target   an MPI_Win_start access epoch and its group, an
 *                   MPI_Win_post exposure epoch (MPI_Win_wait, or
 *                   MPI_Win_test returning true, ends it);
 *   fence           whether the last fence opened an epoch (no
 *                   MPI_MODE_NOSUCCEED), and the RMA calls issued in it.
 * A fence "opens" an epoch only when RMA calls follow it before the next
 * fence (§12.5.1): a trailing MPI_Win_fence(0) before MPI_Win_lock or
 * MPI_Win_free is the common correct pattern, so a fence epoch counts as
 * open for the lifecycle only once this process issued an RMA call in it.
 *
 * An RMA call belongs to the first epoch that covers its target: a lock
 * (MPI_Win_lock on it, MPI_Win_lock_all), then an MPI_Win_start epoch,
 * then the fence epoch. MPI_PROC_NULL targets are not checked (a miss:
 * §12.3 wants them in an epoch too, which libraries do not enforce).
 *
 * Calls: every hook takes mpidbg_rma_lock (the one-sided checks' lock,
 * held only under MPI_THREAD_MULTIPLE) around the state, and reports after
 * releasing it. Windows made where the shim did not see them (adopted)
 * have no state and are not checked.
 */
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "rma_win.h"
#include "rma_lifecycle.h"

struct life {
    struct life *next;
    MPI_Win win;
    MPI_Group group; /* the window's group: MPI_Win_start's ranks are translated into it */
    int size;
    /* passive target */
    uint8_t *locked;      /* per target: MPI_Win_lock epochs open on it (more than one only where the
                           * library took a nested lock, erroneous and reported); made at the first lock */
    uint64_t *lock_site;  /* where each lock was taken */
    int nlocked;
    int lock_all;
    uint64_t lock_all_site;
    /* general active target */
    int started;          /* between MPI_Win_start and MPI_Win_complete */
    uint64_t start_site;
    uint8_t *in_start;    /* per target: in the start group; made at the first start (NULL: any target) */
    int *start_ranks, nstart;
    uint64_t complete_site; /* the MPI_Win_complete that ended the last access epoch, 0 none */
    int posted;           /* between MPI_Win_post and MPI_Win_wait / MPI_Win_test true */
    uint64_t post_site;
    uint64_t waited_site; /* the call that ended the last exposure epoch, 0 none */
    int32_t waited_call;
    /* fence */
    int fenced;              /* the last fence did not assert MPI_MODE_NOSUCCEED */
    uint64_t nosucceed_site; /* the last fence asserted MPI_MODE_NOSUCCEED (there), 0 not */
    int64_t fence_ops;       /* RMA calls of this process in the fence epoch so far */
    uint64_t fence_op_site;  /* the first of them */
    int32_t fence_op_call;
};

static struct life *lives; /* live windows: few, searched linearly as rma.c does */

/* What a hook found, reported once the lock is released. */
struct pend {
    int fid, variant, epoch;
    const char *arg;
    int64_t val, count;
    uint64_t rel_site;
    int32_t rel_call, rel_kind;
};
#define NPEND 5

/* The category decides for every rank alike (MPIDBG_CHECKS is the job's). */
static int on(void)
{
    return mpidbg_enabled(MPIDBG_F_RMA_OUTSIDE_EPOCH);
}

static struct life *life_of(MPI_Win win)
{
    for (struct life *w = lives; w; w = w->next)
        if (w->win == win)
            return w;
    return NULL;
}

static void life_free(struct life *w)
{
    if (w->group != MPI_GROUP_NULL)
        PMPI_Group_free(&w->group);
    free(w->locked);
    free(w->lock_site);
    free(w->in_start);
    free(w->start_ranks);
    free(w);
}

void mpidbg_rma_life_new(struct mpidbg_cx *cx, MPI_Win win, MPI_Comm comm)
{
    if (!cx || win == MPI_WIN_NULL || comm == MPI_COMM_NULL || !on())
        return;
    struct life *w = calloc(1, sizeof *w);
    if (!w)
        return;
    w->win = win;
    w->group = MPI_GROUP_NULL;
    if (PMPI_Win_get_group(win, &w->group) != MPI_SUCCESS || PMPI_Group_size(w->group, &w->size) != MPI_SUCCESS ||
        w->size <= 0) {
        life_free(w);
        return;
    }
    mpidbg_rma_lock();
    w->next = lives;
    lives = w;
    mpidbg_rma_unlock();
}

static void add(struct pend *p, int *n, int fid, int variant, const char *arg, int64_t val)
{
    if (*n >= NPEND)
        return;
    p[*n] = (struct pend){.fid = fid, .variant = variant, .arg = arg, .val = val, .rel_call = -1};
    (*n)++;
}

/* related sets the related place of the last finding added. */
static void related(struct pend *p, int n, uint64_t site, int call, int kind)
{
    if (n <= 0 || !site)
        return;
    p[n - 1].rel_site = site;
    p[n - 1].rel_call = call;
    p[n - 1].rel_kind = kind;
}

static void report(struct mpidbg_cx *cx, const struct pend *p, int n)
{
    for (int i = 0; i < n; i++) {
        struct mpidbg_ev ev;
        mpidbg_ev_init(&ev, cx, p[i].fid, p[i].arg);
        ev.variant = p[i].variant;
        ev.val = p[i].val;
        ev.count = p[i].count;
        ev.epoch = p[i].epoch;
        if (p[i].rel_site) {
            ev.related_site = p[i].rel_site;
            ev.related_call = p[i].rel_call;
            ev.related_kind = p[i].rel_kind;
        }
        mpidbg_report(cx, &ev);
    }
}

static int is_locked(const struct life *w, int t)
{
    return w->locked && w->locked[t];
}

/* in_start: target t is in the open MPI_Win_start epoch's group. */
static int in_start(const struct life *w, int t)
{
    return !w->in_start || w->in_start[t];
}

/* first_locked is a target locked with MPI_Win_lock, -1 none. */
static int first_locked(const struct life *w)
{
    for (int t = 0; w->locked && t < w->size; t++)
        if (w->locked[t])
            return t;
    return -1;
}

/* open_epochs adds the epochs open on w, with fid (start-epoch-open:
 * access epochs only; epoch-left-open: all). */
static void open_epochs(const struct life *w, int fid, struct pend *p, int *n)
{
    if (w->started) {
        add(p, n, fid, MPIDBG_V_START, "win", 0);
        related(p, *n, w->start_site, MPIDBG_CALL_MPI_Win_start, MPIDBG_REL_OPENED);
    }
    if (w->lock_all) {
        add(p, n, fid, MPIDBG_V_LOCK_ALL, "win", 0);
        related(p, *n, w->lock_all_site, MPIDBG_CALL_MPI_Win_lock_all, MPIDBG_REL_OPENED);
    }
    int t = first_locked(w);
    if (t >= 0) {
        add(p, n, fid, MPIDBG_V_LOCK, "win", t);
        if (*n > 0)
            p[*n - 1].count = w->nlocked;
        related(p, *n, w->lock_site[t], MPIDBG_CALL_MPI_Win_lock, MPIDBG_REL_OPENED);
    }
    if (w->fenced && w->fence_ops > 0) {
        add(p, n, fid, MPIDBG_V_FENCE, "win", 0);
        if (*n > 0)
            p[*n - 1].count = w->fence_ops;
        related(p, *n, w->fence_op_site, w->fence_op_call, MPIDBG_REL_STARTED);
    }
    if (fid == MPIDBG_F_EPOCH_LEFT_OPEN && w->posted) {
        add(p, n, fid, MPIDBG_V_POST, "win", 0);
        related(p, *n, w->post_site, MPIDBG_CALL_MPI_Win_post, MPIDBG_REL_OPENED);
    }
}

/* ---- communication calls ---- */

void mpidbg_rma_life_op(struct mpidbg_cx *cx, const struct mpidbg_rma *a)
{
    if (a->target_rank == MPI_PROC_NULL || !on())
        return;
    struct pend p[NPEND];
    int n = 0, t = a->target_rank;
    mpidbg_rma_lock();
    struct life *w = life_of(a->win);
    if (w && t >= 0 && t < w->size && !w->lock_all && !is_locked(w, t)) {
        if (w->started && !in_start(w, t)) {
            add(p, &n, MPIDBG_F_RMA_OUTSIDE_EPOCH, MPIDBG_V_NOT_IN_GROUP, "target_rank", t);
            related(p, n, w->start_site, MPIDBG_CALL_MPI_Win_start, MPIDBG_REL_OPENED);
        } else if ((w->started || w->fenced) && a->request) {
            add(p, &n, MPIDBG_F_RMA_OUTSIDE_EPOCH, MPIDBG_V_REQUEST_BASED, "request", t);
            p[0].epoch = w->started ? MPIDBG_EPOCH_PSCW : MPIDBG_EPOCH_FENCE;
        } else if (w->started || w->fenced) {
            /* in an epoch */
        } else if (w->nosucceed_site) {
            add(p, &n, MPIDBG_F_FENCE_ASSERT_NOSUCCEED, MPIDBG_V_PLAIN, "target_rank", t);
            related(p, n, w->nosucceed_site, MPIDBG_CALL_MPI_Win_fence, MPIDBG_REL_CLOSED);
        } else {
            add(p, &n, MPIDBG_F_RMA_OUTSIDE_EPOCH, MPIDBG_V_PLAIN, "target_rank", t);
        }
    }
    mpidbg_rma_unlock();
    report(cx, p, n);
}

/* mpidbg_rma_life_issued counts the calls of a fence epoch (for
 * MPI_MODE_NOPRECEDE and MPI_Win_free): those no lock or MPI_Win_start
 * epoch covers. */
void mpidbg_rma_life_issued(struct mpidbg_cx *cx, const struct mpidbg_rma *a)
{
    if (a->target_rank == MPI_PROC_NULL || !on())
        return;
    int t = a->target_rank;
    mpidbg_rma_lock();
    struct life *w = life_of(a->win);
    if (w && t >= 0 && t < w->size && w->fenced && !w->lock_all && !is_locked(w, t) &&
        !(w->started && in_start(w, t)) && !w->fence_ops++) {
        w->fence_op_site = cx->site;
        w->fence_op_call = a->call;
    }
    mpidbg_rma_unlock();
}

/* ---- synchronisation calls ---- */

void mpidbg_rma_life_sync_pre(struct mpidbg_cx *cx, const struct mpidbg_rma_sync *s)
{
    if (!on())
        return;
    struct pend p[NPEND];
    int n = 0;
    mpidbg_rma_lock();
    struct life *w = life_of(s->win);
    int t = s->rank, tok = w && t >= 0 && t < w->size;
    if (!w)
        goto out;
    switch (s->call) {
    case MPIDBG_CALL_MPI_Win_fence:
        if ((s->assert_ & MPI_MODE_NOPRECEDE) && w->fenced && w->fence_ops > 0) {
            add(p, &n, MPIDBG_F_FENCE_ASSERT_NOPRECEDE, MPIDBG_V_PLAIN, "assert", s->assert_);
            p[0].count = w->fence_ops;
            related(p, n, w->fence_op_site, w->fence_op_call, MPIDBG_REL_STARTED);
        }
        break;
    case MPIDBG_CALL_MPI_Win_start:
        open_epochs(w, MPIDBG_F_START_EPOCH_OPEN, p, &n);
        n = n > 1 ? 1 : n; /* one is enough to say why */
        break;
    case MPIDBG_CALL_MPI_Win_complete:
        if (!w->started) {
            add(p, &n, MPIDBG_F_COMPLETE_WITHOUT_START, MPIDBG_V_PLAIN, "win", 0);
            related(p, n, w->complete_site, MPIDBG_CALL_MPI_Win_complete, MPIDBG_REL_CLOSED);
        }
        break;
    case MPIDBG_CALL_MPI_Win_post:
        if (w->posted) {
            add(p, &n, MPIDBG_F_POST_TWICE, MPIDBG_V_PLAIN, "win", 0);
            related(p, n, w->post_site, MPIDBG_CALL_MPI_Win_post, MPIDBG_REL_OPENED);
        }
        break;
    case MPIDBG_CALL_MPI_Win_wait:
    case MPIDBG_CALL_MPI_Win_test:
        if (!w->posted) {
            add(p, &n, MPIDBG_F_WAIT_WITHOUT_POST, MPIDBG_V_PLAIN, "win", 0);
            related(p, n, w->waited_site, w->waited_call, MPIDBG_REL_CLOSED);
        }
        break;
    case MPIDBG_CALL_MPI_Win_lock:
        if (tok && w->lock_all) {
            add(p, &n, MPIDBG_F_LOCK_ALL_MIXED, MPIDBG_V_LOCK_ALL, "rank", t);
            related(p, n, w->lock_all_site, MPIDBG_CALL_MPI_Win_lock_all, MPIDBG_REL_OPENED);
        } else if (tok && is_locked(w, t)) {
            add(p, &n, MPIDBG_F_LOCK_TWICE, MPIDBG_V_LOCK, "rank", t);
            related(p, n, w->lock_site[t], MPIDBG_CALL_MPI_Win_lock, MPIDBG_REL_OPENED);
        }
        break;
    case MPIDBG_CALL_MPI_Win_lock_all:
        if (w->lock_all) {
            add(p, &n, MPIDBG_F_LOCK_TWICE, MPIDBG_V_LOCK_ALL, "win", 0);
            related(p, n, w->lock_all_site, MPIDBG_CALL_MPI_Win_lock_all, MPIDBG_REL_OPENED);
        } else if ((t = first_locked(w)) >= 0) {
            add(p, &n, MPIDBG_F_LOCK_ALL_MIXED, MPIDBG_V_LOCK, "win", t);
            p[0].count = w->nlocked;
            related(p, n, w->lock_site[t], MPIDBG_CALL_MPI_Win_lock, MPIDBG_REL_OPENED);
        }
        break;
    case MPIDBG_CALL_MPI_Win_unlock:
        if (tok && !is_locked(w, t)) {
            add(p, &n, MPIDBG_F_UNLOCK_WITHOUT_LOCK, w->lock_all ? MPIDBG_V_LOCK_ALL : MPIDBG_V_PLAIN, "rank", t);
            if (w->lock_all)
                related(p, n, w->lock_all_site, MPIDBG_CALL_MPI_Win_lock_all, MPIDBG_REL_OPENED);
        }
        break;
    case MPIDBG_CALL_MPI_Win_unlock_all:
        if (!w->lock_all) {
            t = first_locked(w);
            add(p, &n, MPIDBG_F_UNLOCK_WITHOUT_LOCK, t >= 0 ? MPIDBG_V_LOCK : MPIDBG_V_PLAIN, "win", t);
            if (t >= 0) {
                p[0].count = w->nlocked;
                related(p, n, w->lock_site[t], MPIDBG_CALL_MPI_Win_lock, MPIDBG_REL_OPENED);
            }
        }
        break;
    case MPIDBG_CALL_MPI_Win_flush:
    case MPIDBG_CALL_MPI_Win_flush_local:
        if (tok && !w->lock_all && !is_locked(w, t)) {
            add(p, &n, MPIDBG_F_FLUSH_OUTSIDE_LOCK, w->nlocked ? MPIDBG_V_LOCK : MPIDBG_V_PLAIN, "rank", t);
            p[0].count = w->nlocked;
        }
        break;
    case MPIDBG_CALL_MPI_Win_flush_all:
    case MPIDBG_CALL_MPI_Win_flush_local_all:
        if (!w->lock_all && !w->nlocked)
            add(p, &n, MPIDBG_F_FLUSH_OUTSIDE_LOCK, MPIDBG_V_PLAIN, "win", 0);
        break;
    case MPIDBG_CALL_MPI_Win_free:
        open_epochs(w, MPIDBG_F_EPOCH_LEFT_OPEN, p, &n);
        break;
    }
out:
    mpidbg_rma_unlock();
    report(cx, p, n);
}

/* start_group notes the window ranks of an MPI_Win_start group. Without
 * memory, or for a group MPI cannot translate, in_start stays NULL and
 * the epoch counts as covering every target: a miss, not a false report. */
static void start_group(struct life *w, MPI_Group g)
{
    int gn = 0, ok = 0;
    if (!w->in_start)
        w->in_start = calloc((size_t)w->size, 1);
    if (w->in_start && g != MPI_GROUP_NULL && PMPI_Group_size(g, &gn) == MPI_SUCCESS && gn >= 0) {
        int *in = malloc(sizeof *in * (size_t)(gn ? gn : 1)), *out = malloc(sizeof *out * (size_t)(gn ? gn : 1));
        if (in && out) {
            for (int i = 0; i < gn; i++)
                in[i] = i;
            if (!gn || PMPI_Group_translate_ranks(g, gn, in, w->group, out) == MPI_SUCCESS) {
                int k = 0;
                for (int i = 0; i < gn; i++)
                    if (out[i] >= 0 && out[i] < w->size) {
                        w->in_start[out[i]] = 1;
                        out[k++] = out[i];
                    }
                free(w->start_ranks);
                w->start_ranks = out;
                w->nstart = k;
                out = NULL;
                ok = 1;
            }
        }
        free(in);
        free(out);
    }
    if (!ok) {
        free(w->in_start);
        w->in_start = NULL;
    }
}

static void start_clear(struct life *w)
{
    for (int i = 0; w->in_start && i < w->nstart; i++)
        w->in_start[w->start_ranks[i]] = 0;
    w->nstart = 0;
}

void mpidbg_rma_life_sync_post(struct mpidbg_cx *cx, const struct mpidbg_rma_sync *s, int rc)
{
    if (rc != MPI_SUCCESS || !on())
        return;
    mpidbg_rma_lock();
    struct life *w = life_of(s->win);
    int t = s->rank, tok = w && t >= 0 && t < w->size;
    if (!w)
        goto out;
    switch (s->call) {
    case MPIDBG_CALL_MPI_Win_fence:
        w->fenced = !(s->assert_ & MPI_MODE_NOSUCCEED);
        w->nosucceed_site = w->fenced ? 0 : cx->site;
        w->fence_ops = 0;
        break;
    case MPIDBG_CALL_MPI_Win_start:
        start_clear(w);
        w->started = 1;
        w->start_site = cx->site;
        start_group(w, s->group);
        break;
    case MPIDBG_CALL_MPI_Win_complete:
        start_clear(w);
        w->started = 0;
        w->complete_site = cx->site;
        break;
    case MPIDBG_CALL_MPI_Win_post:
        w->posted = 1;
        w->post_site = cx->site;
        break;
    case MPIDBG_CALL_MPI_Win_test:
        if (!s->flag || !*s->flag)
            break; /* the exposure epoch goes on */
        /* fall through */
    case MPIDBG_CALL_MPI_Win_wait:
        w->posted = 0;
        w->waited_site = cx->site;
        w->waited_call = s->call;
        break;
    case MPIDBG_CALL_MPI_Win_lock:
        if (!tok)
            break;
        if (!w->locked) {
            w->locked = calloc((size_t)w->size, 1);
            w->lock_site = calloc((size_t)w->size, sizeof *w->lock_site);
            if (!w->locked || !w->lock_site) {
                free(w->locked);
                free(w->lock_site);
                w->locked = NULL;
                w->lock_site = NULL;
                break;
            }
        }
        if (!w->locked[t]) {
            w->lock_site[t] = cx->site;
            w->nlocked++;
        }
        if (w->locked[t] < UINT8_MAX)
            w->locked[t]++; /* a library that took a nested lock wants as many unlocks */
        break;
    case MPIDBG_CALL_MPI_Win_lock_all:
        w->lock_all = 1;
        w->lock_all_site = cx->site;
        break;
    case MPIDBG_CALL_MPI_Win_unlock:
        if (tok && is_locked(w, t) && !--w->locked[t])
            w->nlocked--;
        break;
    case MPIDBG_CALL_MPI_Win_unlock_all:
        /* a library that took it without MPI_Win_lock_all (erroneous,
         * reported) ended the MPI_Win_lock epochs with it */
        w->lock_all = 0;
        if (w->locked)
            memset(w->locked, 0, (size_t)w->size);
        w->nlocked = 0;
        break;
    case MPIDBG_CALL_MPI_Win_free:
        for (struct life **q = &lives; *q; q = &(*q)->next)
            if (*q == w) {
                *q = w->next;
                break;
            }
        mpidbg_rma_unlock();
        life_free(w);
        return;
    }
out:
    mpidbg_rma_unlock();
}

/* ---- MPI_Finalize ---- */

void mpidbg_rma_life_finalize(struct mpidbg_cx *cx)
{
    if (!on())
        return;
    /* windows never freed (leak-win says so); their open epochs here */
    mpidbg_rma_lock();
    struct life *all = lives;
    lives = NULL;
    mpidbg_rma_unlock();
    while (all) {
        struct life *w = all;
        all = w->next;
        struct pend p[NPEND];
        int n = 0;
        open_epochs(w, MPIDBG_F_EPOCH_LEFT_OPEN, p, &n);
        report(cx, p, n);
        life_free(w);
    }
}
