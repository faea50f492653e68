/*
 * The PMPI side of one-sided communication calls: every wrapper of the
 * rma and rma-req classes packs its arguments into a struct mpidbg_rma
 * (rma.h) and calls mpidbg_rma_issue, so that the forcing mode can hold an
 * operation back and issue it later, from a synchronisation call, with
 * the same arguments (mpidbg_rma_pmpi).
 *
 * Contract: pre: the wrapper's checks ran; the epoch lifecycle and the
 * datatypes are checked here, before MPI sees the call. The operation goes to the
 * forcing mode when it is on and takes it, else to PMPI (the forcing mode
 * never holds a request-based operation, whose request must exist now,
 * but issues the accumulates it holds for the same target first, so that
 * their order is kept). post (MPI, or
 * the forcing mode, accepted it): the race checks record it
 * (mpidbg_rma_op).
 */
#include "shim.h"
#include "rma_lifecycle.h"

int mpidbg_rma_pmpi(const struct mpidbg_rma *a)
{
    switch (a->call) {
    case MPIDBG_CALL_MPI_Put:
        return PMPI_Put(a->origin, (int)a->origin_count, a->origin_type, a->target_rank, a->target_disp, (int)a->target_count,
                        a->target_type, a->win);
    case MPIDBG_CALL_MPI_Get:
        return PMPI_Get(a->result, (int)a->result_count, a->result_type, a->target_rank, a->target_disp, (int)a->target_count,
                        a->target_type, a->win);
    case MPIDBG_CALL_MPI_Accumulate:
        return PMPI_Accumulate(a->origin, (int)a->origin_count, a->origin_type, a->target_rank, a->target_disp,
                               (int)a->target_count, a->target_type, a->op, a->win);
    case MPIDBG_CALL_MPI_Get_accumulate:
        return PMPI_Get_accumulate(a->origin, (int)a->origin_count, a->origin_type, a->result, (int)a->result_count,
                                   a->result_type, a->target_rank, a->target_disp, (int)a->target_count, a->target_type,
                                   a->op, a->win);
    case MPIDBG_CALL_MPI_Fetch_and_op:
        return PMPI_Fetch_and_op(a->origin, a->result, a->target_type, a->target_rank, a->target_disp, a->op, a->win);
    case MPIDBG_CALL_MPI_Compare_and_swap:
        return PMPI_Compare_and_swap(a->origin, a->compare, a->result, a->target_type, a->target_rank,
                                     a->target_disp, a->win);
    case MPIDBG_CALL_MPI_Rput:
        return PMPI_Rput(a->origin, (int)a->origin_count, a->origin_type, a->target_rank, a->target_disp, (int)a->target_count,
                         a->target_type, a->win, a->request);
    case MPIDBG_CALL_MPI_Rget:
        return PMPI_Rget(a->result, (int)a->result_count, a->result_type, a->target_rank, a->target_disp,
                         (int)a->target_count, a->target_type, a->win, a->request);
    case MPIDBG_CALL_MPI_Raccumulate:
        return PMPI_Raccumulate(a->origin, (int)a->origin_count, a->origin_type, a->target_rank, a->target_disp,
                                (int)a->target_count, a->target_type, a->op, a->win, a->request);
    case MPIDBG_CALL_MPI_Rget_accumulate:
        return PMPI_Rget_accumulate(a->origin, (int)a->origin_count, a->origin_type, a->result, (int)a->result_count,
                                    a->result_type, a->target_rank, a->target_disp, (int)a->target_count,
                                    a->target_type, a->op, a->win, a->request);
#if MPI_VERSION >= 4 /* the large-count forms (the call ids exist either way) */
    case MPIDBG_CALL_MPI_Put_c:
        return PMPI_Put_c(a->origin, a->origin_count, a->origin_type, a->target_rank, a->target_disp, a->target_count,
                          a->target_type, a->win);
    case MPIDBG_CALL_MPI_Get_c:
        return PMPI_Get_c(a->result, a->result_count, a->result_type, a->target_rank, a->target_disp,
                          a->target_count, a->target_type, a->win);
    case MPIDBG_CALL_MPI_Accumulate_c:
        return PMPI_Accumulate_c(a->origin, a->origin_count, a->origin_type, a->target_rank, a->target_disp,
                                 a->target_count, a->target_type, a->op, a->win);
    case MPIDBG_CALL_MPI_Get_accumulate_c:
        return PMPI_Get_accumulate_c(a->origin, a->origin_count, a->origin_type, a->result, a->result_count,
                                     a->result_type, a->target_rank, a->target_disp, a->target_count,
                                     a->target_type, a->op, a->win);
    case MPIDBG_CALL_MPI_Rput_c:
        return PMPI_Rput_c(a->origin, a->origin_count, a->origin_type, a->target_rank, a->target_disp,
                           a->target_count, a->target_type, a->win, a->request);
    case MPIDBG_CALL_MPI_Rget_c:
        return PMPI_Rget_c(a->result, a->result_count, a->result_type, a->target_rank, a->target_disp,
                           a->target_count, a->target_type, a->win, a->request);
    case MPIDBG_CALL_MPI_Raccumulate_c:
        return PMPI_Raccumulate_c(a->origin, a->origin_count, a->origin_type, a->target_rank, a->target_disp,
                                  a->target_count, a->target_type, a->op, a->win, a->request);
    case MPIDBG_CALL_MPI_Rget_accumulate_c:
        return PMPI_Rget_accumulate_c(a->origin, a->origin_count, a->origin_type, a->result, a->result_count,
                                      a->result_type, a->target_rank, a->target_disp, a->target_count,
                                      a->target_type, a->op, a->win, a->request);
#endif
    }
    return MPI_ERR_INTERN; /* not a one-sided call: a generator bug */
}

int mpidbg_rma_class(int32_t call)
{
    switch (call) {
    case MPIDBG_CALL_MPI_Put:
    case MPIDBG_CALL_MPI_Put_c:
    case MPIDBG_CALL_MPI_Rput:
    case MPIDBG_CALL_MPI_Rput_c:
        return MPIDBG_RMA_CLS_PUT;
    case MPIDBG_CALL_MPI_Get:
    case MPIDBG_CALL_MPI_Get_c:
    case MPIDBG_CALL_MPI_Rget:
    case MPIDBG_CALL_MPI_Rget_c:
        return MPIDBG_RMA_CLS_GET;
    case MPIDBG_CALL_MPI_Accumulate:
    case MPIDBG_CALL_MPI_Accumulate_c:
    case MPIDBG_CALL_MPI_Raccumulate:
    case MPIDBG_CALL_MPI_Raccumulate_c:
        return MPIDBG_RMA_CLS_ACC;
    }
    return MPIDBG_RMA_CLS_FETCH; /* Get_accumulate, Fetch_and_op, Compare_and_swap */
}

int mpidbg_rma_issue(struct mpidbg_cx *cx, struct mpidbg_rma *a)
{
    int rc = MPI_SUCCESS;
    mpidbg_rma_life_op(cx, a); /* the epoch lifecycle, before MPI sees the call */
    mpidbg_rma_types(cx, a);
    a->issued_ns = (uint64_t)mpidbg_mono_ns(); /* an atomic may be applied at the target before MPI returns */
    if (!(mpidbg_nasty_on && mpidbg_nasty_hold(cx, a)))
        rc = mpidbg_rma_pmpi(a);
    if (rc == MPI_SUCCESS) {
        mpidbg_rma_life_issued(cx, a);
        mpidbg_rma_op(cx, a);
    }
    return rc;
}
