/*
 * The epoch lifecycle of one-sided communication (rma_lifecycle.c; the
 * findings in checks/epochs.go, the design in docs/epochs.md): each
 * window's epochs at this process, checked before a call reaches MPI.
 * Its state is its own, kept whenever the epoch-lifecycle category is on,
 * whatever the race checks of rma.c do.
 *
 *   rma.c         mpidbg_rma_life_new at window creation, _sync_pre and
 *                 _sync_post around every synchronisation call and
 *                 MPI_Win_free;
 *   rma_issue.c   mpidbg_rma_life_op before an RMA communication call,
 *                 _issued once MPI (or the forcing mode) took it;
 *   lifecycle.c   mpidbg_rma_life_finalize at MPI_Finalize.
 *
 * Not installed: shim.h's rules apply (hidden, mpidbg_ prefix).
 */
#ifndef MPIDBG_RMA_LIFECYCLE_H
#define MPIDBG_RMA_LIFECYCLE_H

#include <mpi.h>
#include <stdint.h>

#include "rma.h"

struct mpidbg_cx;

#define MPIDBG_LIFE_HIDDEN __attribute__((visibility("hidden")))

/* A window was made over comm (collectively); cx NULL or comm
 * MPI_COMM_NULL: adopted, not checked. */
MPIDBG_LIFE_HIDDEN void mpidbg_rma_life_new(struct mpidbg_cx *cx, MPI_Win win, MPI_Comm comm);
MPIDBG_LIFE_HIDDEN void mpidbg_rma_life_op(struct mpidbg_cx *cx, const struct mpidbg_rma *a);
MPIDBG_LIFE_HIDDEN void mpidbg_rma_life_issued(struct mpidbg_cx *cx, const struct mpidbg_rma *a);
MPIDBG_LIFE_HIDDEN void mpidbg_rma_life_sync_pre(struct mpidbg_cx *cx, const struct mpidbg_rma_sync *s);
MPIDBG_LIFE_HIDDEN void mpidbg_rma_life_sync_post(struct mpidbg_cx *cx, const struct mpidbg_rma_sync *s, int rc);
MPIDBG_LIFE_HIDDEN void mpidbg_rma_life_finalize(struct mpidbg_cx *cx);

#endif
