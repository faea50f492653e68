/*
 * Open MPI 4.x handles (shim.h lists what each name means).
 *
 * Open MPI handles are pointers to its objects; a predefined object is a
 * global of libmpi (MPI_INT is &ompi_mpi_int), so nothing in a handle's
 * value says what it is. The predefined datatypes and operations are
 * looked up in small tables filled from mpi.h's constants (builtin.c,
 * mpi_openmpi.c), never by reading Open MPI's objects: a bad handle from
 * the program is never dereferenced on the hot path.
 * Included by shim.h only.
 */
#ifndef MPIDBG_MPI_OPENMPI_H
#define MPIDBG_MPI_OPENMPI_H

#define MPIDBG_MPI_ID MPIDBG_MPI_OPENMPI
#define MPIDBG_H(h) ((uint64_t)(uintptr_t)(h))
/* Open MPI follows a handle's pointer (MPI_Wait on a request variable
 * holding 0 dies of SIGSEGV), so the shim refuses a call whose handle it
 * found invalid: the call returns the error class through the error
 * handler instead, as a checking MPI would (finding.c). */
#define MPIDBG_DEREFS_HANDLES 1

/* mpidbg_ompi_types maps a predefined contiguous datatype to its size
 * (the value, never 0: a type of size 0 is not entered). Filled once in
 * MPI_Init by mpidbg_ompi_type_add (reg.c), before any wrapper checks
 * a handle; read without a lock. */
extern struct mpidbg_hmap mpidbg_ompi_types __attribute__((visibility("hidden")));
void mpidbg_ompi_type_add(uint64_t h, int64_t size) __attribute__((visibility("hidden")));
static inline int64_t mpidbg_ompi_type_size_or(uint64_t h)
{
    void *v = mpidbg_hmap_get(&mpidbg_ompi_types, h);
    return v ? (int64_t)(intptr_t)v : -1;
}
#define MPIDBG_BUILTIN_TYPE_SIZE_OR(h) mpidbg_ompi_type_size_or(MPIDBG_H(h))
#define MPIDBG_IS_BUILTIN_TYPE(h) (MPIDBG_BUILTIN_TYPE_SIZE_OR(h) >= 0)
/* mpidbg_ompi_op_index looks the handle up among the 14 (builtin.c) */
int mpidbg_ompi_op_index(uint64_t h) __attribute__((visibility("hidden")));
#define MPIDBG_BUILTIN_OP_INDEX(h) mpidbg_ompi_op_index(MPIDBG_H(h))
#define MPIDBG_IS_BUILTIN_OP(h) (MPIDBG_BUILTIN_OP_INDEX(h) > 0)

/* Open MPI completes an operation on MPI_PROC_NULL at once and returns
 * &ompi_request_empty for it (ompi/mpi/c/isend.c, irecv.c): one handle
 * shared by every such operation, as MPICH's builtin requests are. The
 * shim mints a handle per operation instead: the address of a byte of
 * mpidbg_ompi_mint, which nothing else can hold, and gives MPI
 * &ompi_request_empty back (requests.c). */
extern struct ompi_predefined_request_t ompi_request_empty;
extern char mpidbg_ompi_mint[MPIDBG_MINT_SLOTS] __attribute__((visibility("hidden")));
#define MPIDBG_IS_BUILTIN_REQ(h) (MPIDBG_H(h) == (uint64_t)(uintptr_t)&ompi_request_empty)
#define MPIDBG_IS_MINTED_REQ(h) (MPIDBG_H(h) - (uint64_t)(uintptr_t)mpidbg_ompi_mint < sizeof mpidbg_ompi_mint)
#define MPIDBG_MINTABLE(r) 1
#define MPIDBG_MINT(slot, r) ((MPI_Request)(void *)(mpidbg_ompi_mint + (slot)))
#define MPIDBG_MINT_SLOT(h) ((uint32_t)((h) - (uint64_t)(uintptr_t)mpidbg_ompi_mint))
static inline MPI_Request mpidbg_req_real(MPI_Request r)
{
    return MPIDBG_IS_MINTED_REQ(r) ? (MPI_Request)(void *)&ompi_request_empty : r;
}

#endif
