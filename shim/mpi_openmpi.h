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
 * handler instead, as a checking MPI would (report.c). */
#define MPIDBG_DEREFS_HANDLES 1

/* mpidbg_ompi_type_size is the size of a predefined contiguous datatype,
 * 0 for any other handle. */
int64_t mpidbg_ompi_type_size(uint64_t h) __attribute__((visibility("hidden")));
/* mpidbg_ompi_type_add enters one, from MPI_Init (registry.c). */
void mpidbg_ompi_type_add(uint64_t h, int64_t size) __attribute__((visibility("hidden")));
#define MPIDBG_IS_BUILTIN_TYPE(h) (mpidbg_ompi_type_size(MPIDBG_H(h)) > 0)
#define MPIDBG_BUILTIN_TYPE_SIZE(h) mpidbg_ompi_type_size(MPIDBG_H(h))
#define MPIDBG_IS_BUILTIN_OP(h) (mpidbg_builtin_op_index(MPIDBG_H(h)) > 0)

/* Open MPI completes an operation on MPI_PROC_NULL at once and returns
 * &ompi_request_empty for it (ompi/mpi/c/isend.c, irecv.c): one handle
 * shared by every such operation, as MPICH's builtin requests are. The
 * shim mints a handle per operation instead: the address of a byte of
 * mpidbg_ompi_mint, which nothing else can hold, and gives MPI
 * &ompi_request_empty back (requests.c). */
extern struct ompi_predefined_request_t ompi_request_empty;
extern char mpidbg_ompi_mint[1u << 19] __attribute__((visibility("hidden")));
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
