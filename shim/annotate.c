/*
 * The program's own word on its synchronisation (include/mpidbg.h): the
 * entry points its weak references find when the shim is loaded.
 */
#include "shim.h"

void mpidbg_happens_before(const volatile void *p)
{
    mpidbg_tc_sync_release((const void *)p);
}

void mpidbg_happens_after(const volatile void *p)
{
    mpidbg_tc_sync_acquire((const void *)p);
}
