/*
 * What differs between MPI libraries beyond shim.h's macros, for both:
 * which MPI this build is for, and the predefined reduction operations (MPI-4.1 §6.9.2), numbered the
 * same way for every MPI library: the collective-match check sends the
 * number to the other ranks, where a handle value would not do (an Open
 * MPI handle is an address in this process).
 */
#include "shim.h"

static const struct {
    MPI_Op op;
    const char *name;
} ops[] = {
    {MPI_OP_NULL, NULL}, /* index 0: not predefined */
    {MPI_MAX, "MPI_MAX"},   {MPI_MIN, "MPI_MIN"},   {MPI_SUM, "MPI_SUM"},       {MPI_PROD, "MPI_PROD"},
    {MPI_LAND, "MPI_LAND"}, {MPI_BAND, "MPI_BAND"}, {MPI_LOR, "MPI_LOR"},       {MPI_BOR, "MPI_BOR"},
    {MPI_LXOR, "MPI_LXOR"}, {MPI_BXOR, "MPI_BXOR"}, {MPI_MINLOC, "MPI_MINLOC"}, {MPI_MAXLOC, "MPI_MAXLOC"},
    {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"},
};

int mpidbg_builtin_op_index(uint64_t h)
{
    for (int i = 1; i < (int)(sizeof ops / sizeof ops[0]); i++)
        if (MPIDBG_H(ops[i].op) == h)
            return i;
    return 0;
}

const char *mpidbg_builtin_op_name(int index)
{
    return index > 0 && index < (int)(sizeof ops / sizeof ops[0]) ? ops[index].name : NULL;
}

int mpidbg_mpi_id(void)
{
    return MPIDBG_MPI_ID;
}
