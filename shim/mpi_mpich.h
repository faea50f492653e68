/*
 * MPICH 4.x handle encoding (shim.h lists what each name means).
 *
 * MPICH handles are ints: bits 30-31 the handle kind (1 builtin, 2
 * direct, 3 indirect, 0 invalid), bits 26-29 the object kind
 * (mpir_objects.h). A builtin datatype carries its size in bits 8-15.
 * Included by shim.h only.
 */
#ifndef MPIDBG_MPI_MPICH_H
#define MPIDBG_MPI_MPICH_H

#define MPIDBG_MPI_ID MPIDBG_MPI_MPICH
#define MPIDBG_H(h) ((uint64_t)(uint32_t)(h))
/* MPICH checks every handle it is given (probe.c knows the exceptions):
 * a call with a bad one returns an error, so the shim always calls it. */
#define MPIDBG_DEREFS_HANDLES 0
#define MPIDBG_IS_BUILTIN_TYPE(h) ((MPIDBG_H(h) & 0xfc000000u) == 0x4c000000u)
/* expected builtin, as the checks' callers mostly pass predefined types */
#define MPIDBG_BUILTIN_TYPE_SIZE_OR(h) \
    (MPIDBG_LIKELY(MPIDBG_IS_BUILTIN_TYPE(h)) ? (int64_t)((MPIDBG_H(h) >> 8) & 0xff) : (int64_t)-1)
#define MPIDBG_IS_BUILTIN_OP(h) ((MPIDBG_H(h) & 0xfc000000u) == 0x58000000u)
/* MPI_MAX is 0x58000001 ... MPI_NO_OP 0x5800000e, in enum mpidbg_opi's
 * order (builtin.c checks each) */
#define MPIDBG_BUILTIN_OP_INDEX(h) \
    (MPIDBG_H(h) - 0x58000001u < (unsigned)MPIDBG_NOPS - 1 ? (int)(MPIDBG_H(h) - 0x58000000u) : 0)

/* MPICH returns builtin request handles (0x6c0000xx) for operations that
 * completed when they started: one handle value shared by any number of
 * such operations, each still pending for the program until a completion
 * call (MPI-4.1 §3.7.3). The shim hands the program a handle of its own
 * instead, minted in the builtin request range with bit 25 set (MPICH's
 * builtin indices are a few dozen, so it never uses such a value): bits
 * 6-24 a slot, bits 0-5 the builtin index, which mpidbg_req_real gives
 * back to MPI. See requests.c. */
#define MPIDBG_IS_BUILTIN_REQ(h) ((MPIDBG_H(h) & 0xfe000000u) == 0x6c000000u)
#define MPIDBG_IS_MINTED_REQ(h) ((MPIDBG_H(h) & 0xfe000000u) == 0x6e000000u)
#define MPIDBG_MINTABLE(r) ((MPIDBG_H(r) & 0x03ffffffu) <= 0x3fu)
#define MPIDBG_MINT(slot, r) ((MPI_Request)(0x6e000000u | ((uint32_t)(slot) << 6) | (MPIDBG_H(r) & 0x3fu)))
#define MPIDBG_MINT_SLOT(h) ((uint32_t)(((h) >> 6) & (MPIDBG_MINT_SLOTS - 1)))
_Static_assert((MPIDBG_MINT_SLOTS & (MPIDBG_MINT_SLOTS - 1)) == 0 && MPIDBG_MINT_SLOTS << 6 <= 0x02000000u,
               "a minted MPICH handle holds its slot in bits 6-24");
static inline MPI_Request mpidbg_req_real(MPI_Request r)
{
    return MPIDBG_IS_MINTED_REQ(r) ? (MPI_Request)(0x6c000000u | (MPIDBG_H(r) & 0x3fu)) : r;
}

#endif
