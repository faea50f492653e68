/*
 * The datatypes of a one-sided communication call against each other,
 * before MPI sees the call. MPI-4.1 §12.3.1: a put moves its data as a
 * send with the origin's count and datatype and a receive with the
 * target's would, so the type signatures must match (§3.3.1) and the
 * data must fit; §12.3.2: a get the other way; §12.3.4: the accumulate
 * family as a put, and MPI_Get_accumulate also returns the target's data
 * into the result buffer as a get does. MPI_Fetch_and_op and
 * MPI_Compare_and_swap take one datatype: nothing to compare.
 *
 * The same datatype with no more elements on the side the data comes from
 * is the common case and costs a comparison; anything else asks the
 * engine (rma_types.go), and pairs it found fine are kept in a small
 * cache, so that a loop that puts with a derived target datatype asks
 * once.
 */
#include <pthread.h>
#include <string.h>

#include "shim.h"

struct fine {
    uint64_t st, rt;
    uint32_t ss, rs; /* the types' serials: a freed handle reused is another type */
    MPI_Count sc, rc;
    int32_t dir, valid;
};

#define FINE_SIZE 64
static struct fine fine[FINE_SIZE];
static pthread_mutex_t fine_mu = PTHREAD_MUTEX_INITIALIZER;

static struct fine *fine_slot(const struct fine *k)
{
    uint64_t x = k->st * 0x9e3779b97f4a7c15u ^ k->rt * 0xc2b2ae3d27d4eb4fu ^ (uint64_t)k->sc * 0x165667b19e3779f9u ^
                 (uint64_t)k->rc ^ (uint64_t)k->dir << 61;
    x ^= x >> 31;
    return &fine[x & (FINE_SIZE - 1)];
}

static int fine_same(const struct fine *e, const struct fine *k)
{
    return e->valid && e->st == k->st && e->rt == k->rt && e->ss == k->ss && e->rs == k->rs && e->sc == k->sc &&
           e->rc == k->rc && e->dir == k->dir;
}

/* pair compares count sc of st, where the data comes from, with count rc
 * of rt, where it goes; arg is the receiving side's datatype argument,
 * which a mismatch marks, and count its count argument, which a
 * truncation marks (as message-truncated marks the receive's count). */
static void pair(struct mpidbg_cx *cx, const struct mpidbg_rma *a, MPI_Datatype st, MPI_Count sc, MPI_Datatype rt,
                 MPI_Count rc, int dir, const char *arg, const char *count)
{
    if (st == rt && sc <= rc)
        return;
    if (st == MPI_DATATYPE_NULL || rt == MPI_DATATYPE_NULL || sc < 0 || rc < 0)
        return; /* the argument checks said so */
    struct fine k = {MPIDBG_H(st), MPIDBG_H(rt), mpidbg_obj_serial(MPIDBG_OBJ_TYPE, MPIDBG_H(st)),
                     mpidbg_obj_serial(MPIDBG_OBJ_TYPE, MPIDBG_H(rt)), sc, rc, dir, 1};
    struct fine *e = fine_slot(&k);
    pthread_mutex_lock(&fine_mu);
    int known = fine_same(e, &k);
    pthread_mutex_unlock(&fine_mu);
    if (known)
        return;
    struct mpidbg_rmamatch m;
    memset(&m, 0, sizeof m);
    m.stype = k.st;
    m.rtype = k.rt;
    m.scount = sc;
    m.rcount = rc;
    m.call = a->call;
    m.dir = dir;
    m.site = cx->site;
    if (!mpidbg_go_rma_match(&m)) {
        pthread_mutex_lock(&fine_mu);
        *e = k;
        pthread_mutex_unlock(&fine_mu);
        return;
    }
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, MPIDBG_F_RMA_TYPE_MISMATCH, m.truncated ? count : arg);
    ev.text = m.msg; /* the engine wrote it (checks.RMATypeMatch) */
    ev.path = m.path;
    ev.handle = k.rt;
    mpidbg_report(cx, &ev);
}

static int get_accumulate(int32_t call)
{
    return call == MPIDBG_CALL_MPI_Get_accumulate || call == MPIDBG_CALL_MPI_Get_accumulate_c ||
           call == MPIDBG_CALL_MPI_Rget_accumulate || call == MPIDBG_CALL_MPI_Rget_accumulate_c;
}

void mpidbg_rma_types(struct mpidbg_cx *cx, const struct mpidbg_rma *a)
{
    if (!mpidbg_enabled(MPIDBG_F_RMA_TYPE_MISMATCH))
        return;
    switch (mpidbg_rma_class(a->call)) {
    case MPIDBG_RMA_CLS_PUT:
    case MPIDBG_RMA_CLS_ACC:
        pair(cx, a, a->origin_type, a->origin_count, a->target_type, a->target_count, MPIDBG_RMA_DIR_TO_TARGET,
             "target_datatype", "target_count");
        break;
    case MPIDBG_RMA_CLS_GET:
        pair(cx, a, a->target_type, a->target_count, a->result_type, a->result_count, MPIDBG_RMA_DIR_TO_ORIGIN,
             "origin_datatype", "origin_count");
        break;
    default:
        if (!get_accumulate(a->call))
            break;
        /* MPI_NO_OP ignores the origin buffer (§12.3.4) */
        if (a->op != MPI_NO_OP)
            pair(cx, a, a->origin_type, a->origin_count, a->target_type, a->target_count, MPIDBG_RMA_DIR_TO_TARGET,
                 "target_datatype", "target_count");
        pair(cx, a, a->target_type, a->target_count, a->result_type, a->result_count, MPIDBG_RMA_DIR_TO_RESULT,
             "result_datatype", "result_count");
    }
}
