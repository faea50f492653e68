/*
 * The target's own loads and stores to its window memory during an epoch
 * in which other processes (or itself) access it with one-sided
 * operations (rma-target-race), and the helpers the conflict reports
 * share: call sites another rank can name, and findings reported once.
 *
 * Contract: mpidbg_rma_watch, when an epoch opens (MPI_Win_fence without
 * MPI_MODE_NOSUCCEED, MPI_Win_post), hands the window memory to the
 * access tracker in log mode: the program's accesses are recorded, not
 * reported. mpidbg_rma_unwatch, before the PMPI call that closes the epoch
 * (so that MPI's own writes into the window do not fault), collects the
 * log into the window's state and stops watching. mpidbg_rma_accesses_check,
 * when the closed epoch's operation records have arrived, reports each
 * access that touches bytes a remote operation wrote (a load or a store)
 * or read (a store). Passive-target epochs: rma_passive.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "rma_win.h"

/* ---- watching the window ---- */

/* Every access to a watched window page costs a fault and a step (about
 * 12 µs), up to the tracker's log size per epoch: the first epochs of a
 * window are watched, then those whose number is a power of two, so that
 * a program with a million fences pays for about twenty. */
#define LOG_CAP 4096 /* accesses logged per epoch */

int mpidbg_rma_watchable(const struct mpidbg_rma_win *w)
{
    return w->xon && mpidbg_track_on && mpidbg_enabled(MPIDBG_F_RMA_TARGET_RACE) &&
           w->flavor != MPI_WIN_FLAVOR_DYNAMIC && w->base && w->wsize > 0;
}

int mpidbg_rma_log_window(struct mpidbg_rma_win *w, int logcap, const uint64_t *tag, int32_t *stalled)
{
    uint64_t base = (uint64_t)(uintptr_t)w->base;
    struct mpidbg_seg seg = {
        .addr = base,
        .count = w->wsize,
        .type = MPIDBG_H(MPI_BYTE),
        .lo = (int64_t)base,
        .hi = (int64_t)base + w->wsize,
        .mode = MPIDBG_WR,
        .side = 0,
    };
    struct mpidbg_tr_what what = {
        .fid = MPIDBG_F_RMA_TARGET_RACE,
        .fid_latent = -1,
        .addr = base,
        .count = w->wsize,
        .type = MPIDBG_H(MPI_BYTE),
        .logcap = logcap,
        .tag = tag,
        .stalled = stalled,
    };
    int id = mpidbg_track_add(&seg, MPIDBG_TR_LOG, &what, NULL);
    return id > 0 ? id : 0;
}

void mpidbg_rma_watch(struct mpidbg_rma_win *w)
{
    uint64_t n = w->epochs++;
    if (!w->log_id && mpidbg_rma_sampled(n, 8) && mpidbg_rma_watchable(w))
        w->log_id = mpidbg_rma_log_window(w, LOG_CAP, NULL, NULL);
}

void mpidbg_rma_unwatch(struct mpidbg_rma_win *w)
{
    if (!w->log_id)
        return;
    if (!w->acc)
        w->acc = malloc(sizeof *w->acc * MPIDBG_RMA_MAXACC);
    struct mpidbg_tr_access *tmp = malloc(sizeof *tmp * LOG_CAP);
    int n = tmp ? mpidbg_track_log(w->log_id, tmp, LOG_CAP, NULL) : 0; /* beyond the tracker's log: not compared */
    for (int i = 0; i < n; i++) {
        if (tmp[i].pc - mpidbg_mpi_lo < mpidbg_mpi_len)
            continue; /* the MPI library moving data: never the program's */
        if (!w->acc || w->nacc >= MPIDBG_RMA_MAXACC)
            continue; /* beyond the budget: not compared */
        w->acc[w->nacc++] = (struct mpidbg_rma_acc){
            .off = (int64_t)(tmp[i].addr - (uint64_t)(uintptr_t)w->base),
            .pc = tmp[i].pc,
            .write = tmp[i].write,
        };
    }
    free(tmp);
    mpidbg_track_remove(w->log_id);
    w->log_id = 0;
}

/* ---- local accesses against the epoch's operations ---- */

/* The blocks of some records sorted by first byte, with hi replaced by
 * the running maximum of hi and rec by the record reaching that far: the
 * block that reaches furthest among those starting at or before a byte
 * covers it if any does. */
struct cover {
    struct mpidbg_rma_iv *iv;
    size_t n;
};

static void cover_build(struct cover *c, const struct mpidbg_rma_rec **recs, int n, int writers_only)
{
    c->iv = mpidbg_rma_ivs(recs, n, writers_only, &c->n);
    int64_t m = INT64_MIN;
    int mr = -1;
    for (size_t i = 0; i < c->n; i++) {
        if (c->iv[i].hi > m) {
            m = c->iv[i].hi;
            mr = c->iv[i].rec;
        }
        c->iv[i].hi = m;
        c->iv[i].rec = mr;
    }
}

/* cover_find returns the record of a block holding byte off, or -1. */
static int cover_find(const struct cover *c, int64_t off)
{
    size_t lo = 0, hi = c->n; /* first index with lo > off */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->iv[mid].lo <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || c->iv[lo - 1].hi <= off)
        return -1;
    return c->iv[lo - 1].rec;
}

void mpidbg_rma_report_target(struct mpidbg_rma_win *w, const struct mpidbg_rma_acc *a, const struct mpidbg_rma_rec *r,
                              int epoch)
{
    int orank = r->origin >= 0 && r->origin < w->size ? w->world[r->origin] : -1;
    if (mpidbg_seen_pair(a->pc ^ 0x7461726765740000ull, r->site_off ^ ((uint64_t)r->site_mod << 40) ^ (uint64_t)orank << 20))
        return;
    struct mpidbg_cx cx;
    memset(&cx, 0, sizeof cx);
    cx.call = r->call;
    cx.site = a->pc + 1; /* the access, as if it were a return address: the report looks up pc - 1 */
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, &cx, MPIDBG_F_RMA_TARGET_RACE, "window");
    ev.variant = a->write ? MPIDBG_V_STORE : MPIDBG_V_LOAD;
    ev.val = a->off;
    ev.unit = w->units && w->rank < w->size ? w->units[w->rank] : 0;
    ev.epoch = epoch;
    ev.nremote = 1;
    ev.remote_rank[0] = orank;
    ev.remote_mod[0] = r->site_mod;
    ev.remote_off[0] = r->site_off;
    ev.remote_call[0] = r->call;
    ev.remote_access[0] = mpidbg_rma_access(r);
    mpidbg_report(&cx, &ev);
}

void mpidbg_rma_accesses_check(struct mpidbg_rma_win *w, const struct mpidbg_rma_rec **recs, int n, int epoch)
{
    if (!w->nacc || !n || !mpidbg_enabled(MPIDBG_F_RMA_TARGET_RACE))
        return;
    struct cover wr, any;
    cover_build(&wr, recs, n, 1);
    cover_build(&any, recs, n, 0);
    int reported = 0;
    for (int i = 0; i < w->nacc && reported < 16; i++) {
        const struct mpidbg_rma_acc *a = &w->acc[i];
        int k = cover_find(a->write ? &any : &wr, a->off);
        if (k < 0)
            continue;
        mpidbg_rma_report_target(w, a, recs[k], epoch);
        reported++;
    }
    free(wr.iv);
    free(any.iv);
}
