/*
 * Open MPI's side of shim.h's handle names: the map of predefined
 * contiguous datatypes and the bytes whose addresses are minted request
 * handles (mpi_openmpi.h). Empty for MPICH.
 */
#include "shim.h"

#ifdef OPEN_MPI

char mpidbg_ompi_mint[MPIDBG_MINT_SLOTS];

/* A handle map (reg.c) whose value is the size itself: written
 * under the writer lock in MPI_Init before any wrapper checks a handle,
 * read without a lock. */
struct mpidbg_hmap mpidbg_ompi_types;

void mpidbg_ompi_type_add(uint64_t h, int64_t size)
{
    if (!h || size <= 0) /* a value of 0 would read as absent */
        return;
    mpidbg_wlock();
    if (!mpidbg_hmap_get(&mpidbg_ompi_types, h))
        mpidbg_hmap_put(&mpidbg_ompi_types, h, (void *)(intptr_t)size);
    mpidbg_wunlock();
}

#endif
