/* Windows: their records. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "objects.h"

/* Creation numbers (the records' serial), under the lock. */
static uint32_t win_serial;

void mpidbg_win_new(struct mpidbg_cx *cx, MPI_Win w, void *base, int64_t size, int disp_unit, MPI_Comm comm)
{
    if (w == MPI_WIN_NULL)
        return;
    mpidbg_rma_win_new(cx, w, base, size, disp_unit, comm); /* the race checks' state (rma.c), collectively */
    mpidbg_blocked_win_new(w, comm);                         /* its id and group for the deadlock detector */
    int gsize = 0;
    MPI_Group g;
    if (PMPI_Win_get_group(w, &g) == MPI_SUCCESS) {
        PMPI_Group_size(g, &gsize);
        PMPI_Group_free(&g);
    }
    uint64_t h = MPIDBG_H(w);
    mpidbg_wlock();
    struct mpidbg_wobj *o = mpidbg_hmap_get(&mpidbg_wins, h);
    struct mpidbg_slot slot = mpidbg_slot_for(o, o ? o->rec : NULL, &mpidbg_registry.wins, sizeof *o, sizeof *o->rec);
    if (!slot.obj) {
        mpidbg_wunlock();
        return;
    }
    o = slot.obj;
    struct mpidbg_win *r = slot.rec;
    uint32_t serial = ++win_serial;
    r->handle = h;
    r->site = cx ? cx->site : 0;
    r->base = (uint64_t)(uintptr_t)base;
    r->size = size;
    r->comm = MPIDBG_H(comm);
    r->disp_unit = disp_unit;
    r->serial = serial;
    r->state = MPIDBG_LIVE;
    o->handle = h;
    o->rec = r;
    o->size = gsize;
    o->call = cx ? cx->call : -1;
    mpidbg_slot_publish(slot, &mpidbg_registry.wins, &mpidbg_wins, h);
    mpidbg_wunlock();
}

void mpidbg_win_freed(struct mpidbg_cx *cx, uint64_t h, uint32_t serial)
{
    (void)cx;
    struct mpidbg_wobj *o = mpidbg_hmap_get(&mpidbg_wins, h);
    if (!o)
        return;
    mpidbg_wlock();
    if (o->rec->serial == serial)
        o->rec->state = (o->rec->state & ~MPIDBG_LIVE) | MPIDBG_FREED;
    mpidbg_wunlock();
}
