/*
 * Open MPI's side of shim.h's handle names: the table of predefined
 * contiguous datatypes and the bytes whose addresses are minted request
 * handles (mpi_openmpi.h). Empty for MPICH.
 */
#include "shim.h"

#ifdef OPEN_MPI

char mpidbg_ompi_mint[1u << 19];

/* Open addressing on the handle (an address); written once in
 * MPI_Init before any wrapper checks a handle, read without a lock. */
#define TYPES 128
static struct {
    uint64_t h;
    int64_t size;
} types[TYPES];

static unsigned slot_of(uint64_t h)
{
    return (unsigned)((h * 0x9e3779b97f4a7c15ull) >> 57) & (TYPES - 1);
}

void mpidbg_ompi_type_add(uint64_t h, int64_t size)
{
    if (!h || size <= 0)
        return;
    for (unsigned i = slot_of(h), n = 0; n < TYPES; i = (i + 1) & (TYPES - 1), n++)
        if (!types[i].h || types[i].h == h) {
            types[i].size = size;
            __atomic_store_n(&types[i].h, h, __ATOMIC_RELEASE);
            return;
        }
}

int64_t mpidbg_ompi_type_size(uint64_t h)
{
    for (unsigned i = slot_of(h), n = 0; n < TYPES; i = (i + 1) & (TYPES - 1), n++) {
        uint64_t k = __atomic_load_n(&types[i].h, __ATOMIC_ACQUIRE);
        if (k == h)
            return types[i].size;
        if (!k)
            return 0;
    }
    return 0;
}

#endif
