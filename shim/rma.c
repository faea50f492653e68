/*
 * One-sided race checks (issue 5): placeholder hooks; see rma.h.
 */
#include "shim.h"

void mpidbg_rma_op(struct mpidbg_cx *cx, const struct mpidbg_rma *a)
{
    (void)cx;
    (void)a;
}

void mpidbg_rma_sync_pre(struct mpidbg_cx *cx, struct mpidbg_rma_sync *s)
{
    if (mpidbg_nasty_on)
        mpidbg_nasty_sync(cx, s);
}

void mpidbg_rma_sync_post(struct mpidbg_cx *cx, struct mpidbg_rma_sync *s, int rc)
{
    (void)cx;
    (void)s;
    (void)rc;
}
