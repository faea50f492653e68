/*
 * The forcing mode's internals (mpidbg run --nasty), shared by nasty.c
 * (configuration, windows, holding, synchronisation calls, the hold
 * timeout) and nasty_order.c (the order of issue, splitting, the PMPI
 * calls, the trace). The interface the rest of the shim calls is in rma.h
 * (mpidbg_nasty_on, _hold, _sync), plus init and finalize below for
 * lifecycle.c. docs/nasty.md describes the mode.
 */
#ifndef MPIDBG_NASTY_H
#define MPIDBG_NASTY_H

#include "shim.h"

/* --nasty-order */
enum { MPIDBG_NASTY_RANDOM, MPIDBG_NASTY_REVERSE, MPIDBG_NASTY_PUTS_FIRST, MPIDBG_NASTY_GETS_FIRST, MPIDBG_NASTY_PROGRAM };

/* The knobs, from the MPIDBG_NASTY_* variables (internal/envvar names them). */
struct mpidbg_nasty_cfg {
    uint64_t seed;
    int order;
    int split;          /* split multi-element operations */
    int flush;          /* flush after each issued operation in a passive-target epoch */
    int64_t delay_us;   /* sleep after each issued operation */
    int64_t hold_ns;    /* rma-unsynchronised after this long while polling; 0 never */
    int trace_fd;       /* MPIDBG_NASTY_TRACE: issue order, one line per operation; -1 none */
};
extern struct mpidbg_nasty_cfg mpidbg_nasty_cfg MPIDBG_HIDDEN;

/* One held operation, or one piece of a split one. */
struct mpidbg_held {
    struct mpidbg_rma a;   /* as it will be issued: a piece has its own origin/result, counts and offset */
    MPI_Aint piece_off;    /* a piece: bytes from the target displacement, issued with an hindexed target type */
    uint64_t seq;          /* program order on this rank */
    uint64_t site;         /* the call's return address */
    int64_t t_ns;          /* when it was held (CLOCK_MONOTONIC) */
    uint64_t polls;        /* the rank's RMA calls before it */
    int32_t piece;         /* of a split operation, else 0; -1 once issued */
    int32_t cls;           /* mpidbg_rma_class (rma.h): puts and gets are reordered freely; the
                            * accumulate family keeps program order towards one target unless the
                            * window says accumulate_ordering=none (MPI-4.1 §12.7.2) */
    int32_t ndup;          /* datatypes duplicated for it (the program may free its own), freed after issue */
    MPI_Datatype dup[3];
};

/* What the forcing mode knows of one window: the epochs open at this
 * rank (to know where MPI_Win_flush is allowed) and the held operations
 * in program order. */
struct mpidbg_nasty_win {
    MPI_Win win;
    struct mpidbg_nasty_win *next;
    int size;              /* the window's group */
    int lock_all;
    int *locks;            /* per target: MPI_Win_lock minus MPI_Win_unlock */
    int fence;             /* a fence opened an epoch (no MPI_MODE_NOSUCCEED) */
    int start;             /* between MPI_Win_start and MPI_Win_complete */
    int acc_free;          /* accumulate_ordering=none */
    struct mpidbg_held *q;
    int n, cap;
};

/* nasty_order.c */
MPIDBG_HIDDEN uint64_t mpidbg_nasty_rand(void);
MPIDBG_HIDDEN void mpidbg_nasty_seed_rank(uint64_t seed, int rank);
MPIDBG_HIDDEN int mpidbg_nasty_passive(const struct mpidbg_nasty_win *w, int target);
/* Issues the held operations of w to target (-1: all) in the configured
 * order and removes them; force_flush flushes each in a passive epoch
 * even with --nasty-flush=off. */
MPIDBG_HIDDEN void mpidbg_nasty_issue(struct mpidbg_nasty_win *w, int target, int force_flush);

/* lifecycle.c: at MPI_Init (after the world rank is known) and MPI_Finalize. */
MPIDBG_HIDDEN void mpidbg_nasty_init(void);
MPIDBG_HIDDEN void mpidbg_nasty_finalize(struct mpidbg_cx *cx);

#endif
