/* Groups: their records and the world ranks of their members. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "objects.h"

/* Creation numbers (the records' serial), under the lock. */
static uint32_t group_serial;

void mpidbg_group_new(struct mpidbg_cx *cx, MPI_Group g, int predef)
{
    if (g == MPI_GROUP_NULL || g == MPI_GROUP_EMPTY)
        return;
    uint64_t h = MPIDBG_H(g);
    struct mpidbg_gobj *o = mpidbg_hmap_get(&mpidbg_groups, h);
    if (o && o->refs > 0) {
        /* MPI returned a group the program already holds (MPICH's
         * MPI_Comm_group): one more handle to free */
        mpidbg_wlock();
        o->refs++;
        mpidbg_wunlock();
        return;
    }
    int size = 0, rank = MPI_UNDEFINED;
    PMPI_Group_size(g, &size);
    PMPI_Group_rank(g, &rank);
    int32_t *wr = mpidbg_world_ranks_of_group(g, size);
    mpidbg_wlock();
    o = mpidbg_hmap_get(&mpidbg_groups, h);
    if (o)
        free((void *)(uintptr_t)o->rec->world_ranks);
    struct mpidbg_slot slot = mpidbg_slot_for(o, o ? o->rec : NULL, &mpidbg_registry.groups, sizeof *o, sizeof *o->rec);
    if (!slot.obj) {
        mpidbg_wunlock();
        free(wr);
        return;
    }
    o = slot.obj;
    struct mpidbg_group *r = slot.rec;
    uint32_t serial = ++group_serial;
    r->handle = h;
    r->site = cx ? cx->site : 0;
    r->world_ranks = (uint64_t)(uintptr_t)wr;
    r->size = size;
    r->rank = rank;
    r->serial = serial;
    r->state = MPIDBG_LIVE | (predef ? MPIDBG_PREDEFINED : 0);
    o->handle = h;
    o->rec = r;
    o->predef = predef;
    o->refs = 1;
    o->call = cx ? cx->call : -1;
    mpidbg_slot_publish(slot, &mpidbg_registry.groups, &mpidbg_groups, h);
    mpidbg_wunlock();
}

void mpidbg_group_freed(struct mpidbg_cx *cx, uint64_t h, uint32_t serial)
{
    (void)cx;
    struct mpidbg_gobj *o = mpidbg_hmap_get(&mpidbg_groups, h);
    if (!o || o->predef)
        return;
    mpidbg_wlock();
    if (o->rec->serial == serial && --o->refs <= 0) {
        o->refs = 0;
        o->rec->state = (o->rec->state & ~MPIDBG_LIVE) | MPIDBG_FREED;
    }
    mpidbg_wunlock();
}
