/*
 * One-sided communication as the shim sees it: the generated wrappers of
 * the rma, rma-req, rma-sync and win-free classes pack their arguments
 * into the structs below and hand them to
 *
 *   rma_issue.c  mpidbg_rma_issue: the operation goes to MPI now, or to
 *                the forcing mode (nasty.c), which may hold it back until
 *                a synchronisation call requires it;
 *   rma.c        the race checks: epochs, origin buffers, target ranges
 *                (mpidbg_rma_op, mpidbg_rma_sync_pre/post, ...).
 *
 * Not installed: shim.h's rules apply (hidden, mpidbg_ prefix).
 */
#ifndef MPIDBG_RMA_H
#define MPIDBG_RMA_H

#include <mpi.h>
#include <stdint.h>

struct mpidbg_cx;

/* The arguments of one RMA communication call (MPI-4.1 §12.3). Fields a
 * call does not have are zero / MPI_DATATYPE_NULL / NULL. MPI_Fetch_and_op
 * and MPI_Compare_and_swap have one datatype and one element: the
 * wrappers set origin, result and target types to it and the counts to 1
 * (origin_count 0 for MPI_Fetch_and_op with MPI_NO_OP is still 1: MPI
 * ignores the origin buffer then). */
struct mpidbg_rma {
    int32_t call; /* MPIDBG_CALL_MPI_Put ... MPIDBG_CALL_MPI_Rget_accumulate_c */
    int32_t pad;
    const void *origin;
    MPI_Count origin_count; /* MPI_Count: the _c forms share the struct */
    MPI_Datatype origin_type;
    const void *compare; /* MPI_Compare_and_swap */
    void *result;        /* MPI_Get's origin buffer is here too: the buffer MPI writes */
    MPI_Count result_count;
    MPI_Datatype result_type;
    int target_rank;
    MPI_Aint target_disp;
    MPI_Count target_count;
    MPI_Datatype target_type;
    MPI_Op op;
    MPI_Win win;
    MPI_Request *request; /* request-based forms */
    uint64_t issued_ns;   /* CLOCK_MONOTONIC just before MPI saw it (the record's issued_ns) */
};

/* The arguments of one synchronisation call (MPI-4.1 §12.5) or window
 * query of the rma-sync class, and of MPI_Win_free. */
struct mpidbg_rma_sync {
    int32_t call;
    int32_t assert_;   /* the assert argument (MPI_MODE_NOCHECK ...) */
    int rank;          /* lock, unlock, flush, flush_local: the target; shared_query: the rank */
    int lock_type;     /* MPI_LOCK_SHARED / MPI_LOCK_EXCLUSIVE */
    MPI_Group group;   /* post, start */
    MPI_Win win;
    int *flag;         /* MPI_Win_test */
    const void *base;  /* attach, detach */
    MPI_Aint size;     /* attach */
};

/* rma_issue.c: the PMPI call of an RMA communication call, or its
 * deferral by the forcing mode. */
__attribute__((visibility("hidden"))) int mpidbg_rma_issue(struct mpidbg_cx *cx, struct mpidbg_rma *a);
__attribute__((visibility("hidden"))) int mpidbg_rma_pmpi(const struct mpidbg_rma *a);

/* What a communication call does at its target, for the race checks and
 * the forcing mode: a put writes, a get reads; the accumulate family
 * (ACC: Accumulate; FETCH: Get_accumulate, Fetch_and_op,
 * Compare_and_swap, which also return the old value) updates atomically
 * per element. Request-based and _c forms belong with their plain call. */
enum { MPIDBG_RMA_CLS_PUT, MPIDBG_RMA_CLS_GET, MPIDBG_RMA_CLS_ACC, MPIDBG_RMA_CLS_FETCH };
__attribute__((visibility("hidden"))) int mpidbg_rma_class(int32_t call);

/* rma_types.c: the call's datatypes against each other (rma-type-mismatch),
 * before MPI sees the call. */
__attribute__((visibility("hidden"))) void mpidbg_rma_types(struct mpidbg_cx *cx, const struct mpidbg_rma *a);

/* rma.c: the race checks. mpidbg_rma_op runs after MPI (or the forcing
 * mode) accepted an operation; sync_pre before the PMPI call of a
 * synchronisation call (and after the forcing mode issued what it held),
 * sync_post after it with its return code. */
__attribute__((visibility("hidden"))) void mpidbg_rma_op(struct mpidbg_cx *cx, const struct mpidbg_rma *a);
__attribute__((visibility("hidden"))) void mpidbg_rma_sync_pre(struct mpidbg_cx *cx, struct mpidbg_rma_sync *s);
__attribute__((visibility("hidden"))) void mpidbg_rma_sync_post(struct mpidbg_cx *cx, struct mpidbg_rma_sync *s, int rc);
/* mpidbg_rma_nested_free_pre and _post: MPI_Win_free inside another MPI
 * call (mpidbg_nested_freed), around PMPI_Win_free (_post after it
 * succeeded, with what _pre returned) */
__attribute__((visibility("hidden"))) void *mpidbg_rma_nested_free_pre(MPI_Win win);
__attribute__((visibility("hidden"))) void mpidbg_rma_nested_free_post(void *w);
/* mpidbg_rma_win_new: a window was made (objects.c, collectively over
 * comm); cx NULL or comm MPI_COMM_NULL: adopted, not checked. */
__attribute__((visibility("hidden"))) void mpidbg_rma_win_new(struct mpidbg_cx *cx, MPI_Win w, void *base, int64_t size,
                                                             int disp_unit, MPI_Comm comm);
/* rma_info.c: the window's info as the program gave it at creation or to
 * MPI_Win_set_info (accumulate_ordering, accumulate_ops). info_pre reads
 * it before the call (MPI may change the program's info object), win_info
 * applies it to the window after (after mpidbg_rma_win_new). */
__attribute__((visibility("hidden"))) void mpidbg_rma_info_pre(MPI_Info info);
__attribute__((visibility("hidden"))) void mpidbg_rma_win_info(MPI_Win w);

/* mpidbg_rma_ticking counts the windows whose passive-target epochs are
 * compared: while there are some, each shadow send ticks the Lamport
 * clock once more (xr_p2p.c). */
extern int mpidbg_rma_ticking __attribute__((visibility("hidden")));

/* mpidbg_rma_due is non-zero while the target-side watch of some window
 * waits for something: every wrapper's exit then calls mpidbg_rma_poll.
 * STALL: the tracker gave up on a watched range (its log is full, a page
 * was left open); WAIT: a window waits for the clock to move. */
#define MPIDBG_RMA_DUE_STALL 1
#define MPIDBG_RMA_DUE_WAIT 2
extern int mpidbg_rma_due __attribute__((visibility("hidden")));
__attribute__((visibility("hidden"))) void mpidbg_rma_poll(void);

/* nasty.c: the forcing mode (mpidbg run --nasty). mpidbg_nasty_on is set
 * from MPIDBG_NASTY at MPI_Init. hold: take the operation (copying what
 * it needs: the forcing mode must not read the origin buffer earlier
 * than MPI could); returns 1 when it took it, 0 when the caller must
 * issue it now. sync: issue what a synchronisation call requires, before
 * its PMPI call. */
extern int mpidbg_nasty_on __attribute__((visibility("hidden")));
__attribute__((visibility("hidden"))) int mpidbg_nasty_hold(struct mpidbg_cx *cx, const struct mpidbg_rma *a);
__attribute__((visibility("hidden"))) void mpidbg_nasty_sync(struct mpidbg_cx *cx, const struct mpidbg_rma_sync *s);

#endif
