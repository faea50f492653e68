/* Reduction operations: their records. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "objects.h"

/* Creation numbers (the records' serial), under the lock. */
static uint32_t op_serial;

void mpidbg_op_new(struct mpidbg_cx *cx, MPI_Op op, int predef, void *fn, int commute)
{
    if (op == MPI_OP_NULL || MPIDBG_IS_BUILTIN_OP(op))
        return;
    uint64_t h = MPIDBG_H(op);
    mpidbg_wlock();
    struct mpidbg_oobj *o = mpidbg_hmap_get(&mpidbg_ops, h);
    struct mpidbg_slot slot = mpidbg_slot_for(o, o ? o->rec : NULL, &mpidbg_registry.ops, sizeof *o, sizeof *o->rec);
    if (!slot.obj) {
        mpidbg_wunlock();
        return;
    }
    o = slot.obj;
    struct mpidbg_op *r = slot.rec;
    uint32_t serial = ++op_serial;
    r->handle = h;
    r->site = cx ? cx->site : 0;
    r->fn = (uint64_t)(uintptr_t)fn;
    r->commute = commute;
    r->serial = serial;
    r->state = MPIDBG_LIVE | (predef ? MPIDBG_PREDEFINED : 0);
    o->handle = h;
    o->rec = r;
    o->predef = predef;
    o->call = cx ? cx->call : -1;
    mpidbg_slot_publish(slot, &mpidbg_registry.ops, &mpidbg_ops, h);
    mpidbg_wunlock();
}

void mpidbg_op_freed(struct mpidbg_cx *cx, uint64_t h, uint32_t serial)
{
    (void)cx;
    struct mpidbg_oobj *o = mpidbg_hmap_get(&mpidbg_ops, h);
    if (!o || o->predef)
        return;
    mpidbg_wlock();
    if (o->rec->serial == serial)
        o->rec->state = (o->rec->state & ~MPIDBG_LIVE) | MPIDBG_FREED;
    mpidbg_wunlock();
}
