/*
 * The program's own word on its synchronisation (include/mpidbg.h): the
 * entry points its weak references find when the shim is loaded.
 */
#include "shim.h"

void mpidbg_happens_before(const volatile void *p)
{
    if (mpidbg_tc_edges())
        mpidbg_tc_release((const void *)p);
}

void mpidbg_happens_after(const volatile void *p)
{
    if (mpidbg_tc_edges())
        mpidbg_tc_acquire((const void *)p);
}
