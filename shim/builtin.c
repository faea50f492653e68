/*
 * The predefined reduction operations (MPI-4.1 §6.9.2), numbered the
 * same way for every MPI library (enum mpidbg_opi, shim.h): the
 * collective-match check sends the number to the other ranks, where a
 * handle value would not do (an Open MPI handle is an address in this
 * process).
 */
#include "shim.h"

/* Indexed by enum mpidbg_opi, which MPIDBG_BUILTIN_OPS makes in the same
 * order: names for both MPIs, handles for Open MPI's lookup. */
#define OP_ENTRY(n) [MPIDBG_OP_##n] = {MPI_##n, "MPI_" #n},
static const struct {
    MPI_Op op;
    const char *name;
} ops[MPIDBG_NOPS] = {
    [MPIDBG_OP_NONE] = {MPI_OP_NULL, NULL}, /* not predefined */
    MPIDBG_BUILTIN_OPS(OP_ENTRY)
};
#undef OP_ENTRY

#ifdef OPEN_MPI
/* An Open MPI handle is the address of a global of libmpi: a scan of the
 * 14 (mpi_openmpi.h). */
int mpidbg_ompi_op_index(uint64_t h)
{
    for (int i = 1; i < MPIDBG_NOPS; i++)
        if (MPIDBG_H(ops[i].op) == h)
            return i;
    return 0;
}
#else
/* MPICH's handles are constants mpi.h numbers in the same order as
 * enum mpidbg_opi: mpi_mpich.h computes the number from the bits; the
 * compiler checks each here. */
#define OP_CHECK(n) _Static_assert(MPIDBG_BUILTIN_OP_INDEX(MPI_##n) == MPIDBG_OP_##n, "MPI_" #n "'s number");
MPIDBG_BUILTIN_OPS(OP_CHECK)
#undef OP_CHECK
_Static_assert(MPIDBG_BUILTIN_OP_INDEX(MPI_OP_NULL) == 0, "MPI_OP_NULL is not predefined");
#endif

const char *mpidbg_builtin_op_name(int index)
{
    return index > 0 && index < MPIDBG_NOPS ? ops[index].name : NULL;
}
