/*
 * The forcing mode (mpidbg run --nasty): placeholder; see rma.h.
 */
#include "shim.h"

int mpidbg_nasty_on;

int mpidbg_nasty_hold(struct mpidbg_cx *cx, const struct mpidbg_rma *a)
{
    (void)cx;
    (void)a;
    return 0;
}

void mpidbg_nasty_sync(struct mpidbg_cx *cx, const struct mpidbg_rma_sync *s)
{
    (void)cx;
    (void)s;
}
