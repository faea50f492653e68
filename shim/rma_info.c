/*
 * The window info the conflict comparison honours (rma_epoch.c): what the
 * program promised about its accumulates when it made the window, or
 * later with MPI_Win_set_info.
 *
 *   accumulate_ordering  (MPI-4.1 §12.7.2) a comma-separated list of rar,
 *                        raw, war, waw, or "none": which orders MPI keeps
 *                        between the accumulates of one origin to one
 *                        target; "rar,raw,war,waw" by default;
 *   accumulate_ops       (§12.2.1) "same_op_no_op", the default: concurrent
 *                        accumulates to one location use one op or
 *                        MPI_NO_OP; "same_op": one op, MPI_NO_OP included.
 *
 * The info argument is read as the program gave it (its promise), not
 * MPI_Win_get_info's answer (what the library kept of it), and before the
 * call: MPICH's MPI_Win_create cuts the program's own info value at the
 * first comma while it parses it. So the pre hook reads it
 * (mpidbg_rma_info_pre) and the post hook, once the window exists, applies
 * it (mpidbg_rma_win_info). Each rank reads its own; every record carries
 * its origin's (MPIDBG_RMA_ORD_*, MPIDBG_RMA_SAME_OP in the record's
 * flags), taken when it was issued, so that MPI_Win_set_info applies from
 * the next operation on. A value the shim cannot read leaves what was
 * there (the defaults at creation).
 */
#include <string.h>

#include "shim.h"
#include "rma_win.h"

/* info_value reads key into buf: 1 when the key is set. */
static int info_value(MPI_Info info, const char *key, char *buf, int len)
{
    int flag = 0;
    if (info == MPI_INFO_NULL)
        return 0;
#if MPI_VERSION >= 4
    int n = len;
    if (PMPI_Info_get_string(info, key, &n, buf, &flag) != MPI_SUCCESS)
        return 0;
#else
    if (PMPI_Info_get(info, key, len - 1, buf, &flag) != MPI_SUCCESS)
        return 0;
#endif
    buf[len - 1] = 0;
    return flag;
}

/* ordering parses an accumulate_ordering value: the MPIDBG_RMA_ORD_* bits,
 * or -1 when it is not one the standard defines. */
static int ordering(const char *v)
{
    char tok[16];
    unsigned bits = 0;
    int n = 0, any = 0;
    for (const char *p = v;; p++) {
        if (*p && *p != ',') {
            if (*p != ' ' && *p != '\t') {
                if (n >= (int)sizeof tok - 1)
                    return -1;
                tok[n++] = *p;
            }
            continue;
        }
        tok[n] = 0;
        if (!strcmp(tok, "rar"))
            bits |= MPIDBG_RMA_ORD_RAR;
        else if (!strcmp(tok, "raw"))
            bits |= MPIDBG_RMA_ORD_RAW;
        else if (!strcmp(tok, "war"))
            bits |= MPIDBG_RMA_ORD_WAR;
        else if (!strcmp(tok, "waw"))
            bits |= MPIDBG_RMA_ORD_WAW;
        else if (!strcmp(tok, "none") && !any && !*p)
            return 0;
        else
            return -1;
        any = 1;
        n = 0;
        if (!*p)
            break;
    }
    return (int)bits;
}

/* What the last pre hook of this thread read: the bits the info sets
 * (mask) and their values. Windows are made collectively, one call at a
 * time per thread. */
static __thread uint32_t read_mask, read_bits;

void mpidbg_rma_info_pre(MPI_Info info)
{
    char v[64];
    read_mask = read_bits = 0;
    if (info_value(info, "accumulate_ordering", v, sizeof v)) {
        int o = ordering(v);
        if (o >= 0) {
            read_mask |= MPIDBG_RMA_ORD_ALL;
            read_bits |= (uint32_t)o;
        }
    }
    if (info_value(info, "accumulate_ops", v, sizeof v)) {
        if (!strcmp(v, "same_op")) {
            read_mask |= MPIDBG_RMA_SAME_OP;
            read_bits |= MPIDBG_RMA_SAME_OP;
        } else if (!strcmp(v, "same_op_no_op")) {
            read_mask |= MPIDBG_RMA_SAME_OP;
        }
    }
}

/* mpidbg_rma_win_info applies what the pre hook read: keys the info does
 * not set keep their values (MPI_Win_set_info changes only those it
 * names). */
void mpidbg_rma_win_info(MPI_Win win)
{
    uint32_t mask = read_mask, bits = read_bits;
    read_mask = read_bits = 0;
    if (!mask)
        return;
    mpidbg_rma_lock();
    struct mpidbg_rma_win *w = mpidbg_rma_win_of(win);
    if (w)
        w->accinfo = (w->accinfo & ~mask) | bits;
    mpidbg_rma_unlock();
}

void mpidbg_pre_MPI_Win_set_info(struct mpidbg_cx *cx, MPI_Win win, MPI_Info info)
{
    (void)cx, (void)win;
    mpidbg_rma_info_pre(info);
}

void mpidbg_post_MPI_Win_set_info(struct mpidbg_cx *cx, MPI_Win win, MPI_Info info)
{
    (void)cx, (void)info;
    mpidbg_rma_win_info(win);
}
