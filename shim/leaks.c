/*
 * Leaks at MPI_Finalize: operations never completed
 * (request-never-completed, MPI-4.1 §11.2.2) and objects never freed
 * (leak-*: warnings, not errors at finalize, but leaks in long runs),
 * reported once per kind and place of creation, with how many objects
 * made there are still alive. Objects the shim adopted without seeing
 * them made (probe.c) have no place and are not reported.
 */
#include <stdlib.h>

#include "shim.h"

struct leak {
    int fid;
    int call;
    uint64_t site;
    uint64_t handle;
    int64_t n;
    uint64_t rel_site; /* request-overwritten: where the lost operation started */
    int rel_call;
};

struct leaks {
    struct leak *v;
    int n, cap;
};

static struct leak *leak_add(struct leaks *L, int fid, int call, uint64_t site, uint64_t handle)
{
    for (int i = 0; i < L->n; i++)
        if (L->v[i].fid == fid && L->v[i].site == site && L->v[i].call == call) {
            L->v[i].n++;
            return &L->v[i];
        }
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 16;
        struct leak *v = realloc(L->v, sizeof *L->v * cap);
        if (!v)
            return NULL; /* out of memory: this leak goes unreported */
        L->v = v;
        L->cap = cap;
    }
    L->v[L->n++] = (struct leak){fid, call, site, handle, 1, 0, -1};
    return &L->v[L->n - 1];
}

static void leak_type(void *v, void *arg)
{
    struct mpidbg_tobj *o = v;
    if (!o->predef && o->rec && o->refs > 0 && (o->rec->state & MPIDBG_LIVE))
        leak_add(arg, MPIDBG_F_LEAK_TYPE, o->call, o->rec->site, o->handle);
}

static void leak_comm(void *v, void *arg)
{
    struct mpidbg_cobj *o = v;
    if (!o->predef && !o->freed)
        leak_add(arg, MPIDBG_F_LEAK_COMM, o->call, o->rec->site, o->handle);
}

static void leak_group(void *v, void *arg)
{
    struct mpidbg_gobj *o = v;
    if (!o->predef && o->refs > 0)
        leak_add(arg, MPIDBG_F_LEAK_GROUP, o->call, o->rec->site, o->handle);
}

static void leak_op(void *v, void *arg)
{
    struct mpidbg_oobj *o = v;
    if (!o->predef && (o->rec->state & MPIDBG_LIVE))
        leak_add(arg, MPIDBG_F_LEAK_OP, o->call, o->rec->site, o->handle);
}

static void leak_win(void *v, void *arg)
{
    struct mpidbg_wobj *o = v;
    if ((o->rec->state & MPIDBG_LIVE) && o->rec->site) /* not adopted (probe.c) */
        leak_add(arg, MPIDBG_F_LEAK_WIN, o->call, o->rec->site, o->handle);
}

static void leak_request(void *v, void *arg)
{
    struct mpidbg_robj *o = v;
    struct leaks *L = arg;
    if (o->active && o->ow_site) {
        /* lost when a new operation took its variable (roles.c) */
        struct leak *e = leak_add(L, MPIDBG_F_REQUEST_OVERWRITTEN, o->ow_call, o->ow_site, o->handle);
        if (e) {
            e->rel_site = o->rec->site;
            e->rel_call = o->call;
        }
    }
    if (o->active)
        leak_add(arg, MPIDBG_F_REQUEST_NEVER_COMPLETED, o->call, o->rec->site, o->handle);
    else if (o->persistent && o->live)
        leak_add(arg, MPIDBG_F_LEAK_REQUEST, o->call, o->rec->site, o->handle);
}

/* mpidbg_leaks reports, at MPI_Finalize, the operations never completed
 * and the objects never freed (MPI-4.1 §11.2.2 for the former; the
 * latter are warnings: not errors at finalize, but leaks in long runs). */
void mpidbg_leaks(struct mpidbg_cx *cx)
{
    struct leaks L = {0};
    mpidbg_hmap_each(&mpidbg_requests, leak_request, &L);
    if (mpidbg_enabled(MPIDBG_F_LEAK_TYPE)) {
        mpidbg_hmap_each(&mpidbg_types, leak_type, &L);
        mpidbg_hmap_each(&mpidbg_comms, leak_comm, &L);
        mpidbg_hmap_each(&mpidbg_groups, leak_group, &L);
        mpidbg_hmap_each(&mpidbg_ops, leak_op, &L);
        mpidbg_hmap_each(&mpidbg_wins, leak_win, &L);
    }
    for (int i = 0; i < L.n; i++) {
        struct mpidbg_ev ev;
        mpidbg_ev_init(&ev, cx, L.v[i].fid, NULL);
        ev.call = L.v[i].call;
        ev.site = L.v[i].site;
        ev.handle = L.v[i].handle;
        ev.val = L.v[i].n;
        ev.related_site = cx->site;
        ev.related_call = cx->call;
        ev.related_kind = MPIDBG_REL_FINALIZE;
        if (L.v[i].rel_site) {
            ev.related_site = L.v[i].rel_site;
            ev.related_call = L.v[i].rel_call;
            ev.related_kind = MPIDBG_REL_STARTED;
        }
        mpidbg_report(cx, &ev);
    }
    free(L.v);
}
