/*
 * The neighbourhood collectives' blocks (MPI_Neighbor_*, MPI-4.1 §8.6):
 * each block a rank sends along an edge of the process topology must
 * match, in count and type signature, the block its neighbour receives
 * along the same edge (§6.1, which §8.6 refers to).
 *
 * Each rank sends every block's count, signature digest and index with
 * the same neighbourhood collective pattern on the shadow communicator,
 * which carries the topology (a duplicate of the program's communicator,
 * MPI-4.1 §7.4.2). Which of a neighbour's blocks this rank must receive
 * in which slot is the standard's, not the library's: where two edges
 * join the same two processes the libraries have paired them otherwise
 * (MPICH 4.0's blocking forms and Open MPI 4.1's nonblocking ones in a
 * periodic Cartesian dimension of size 1 or 2). So each block carries
 * its index and the receiver pairs the blocks a process sent it as §8.6
 * says: on a Cartesian communicator the block a process sends in
 * direction s is received in slot s^1 (Example 8.10: the block sent to
 * the -1 neighbour is the one that neighbour receives from its +1
 * neighbour); on a graph, the k-th edge from a process to this one
 * carries the k-th block that process sends it.
 *
 * When: a blocking form after the agreement, and only when it found the
 * same collective on every member (a member that called another
 * collective would never join the exchange); a nonblocking or
 * persistent form at the call, in the program's collective order, as the
 * v/w forms' blocks (xr_coll.c), compared when its request completes.
 * Only the ranks that find a block that does not pair report it, each at
 * its own call.
 */
#include <stdlib.h>

#include "shim.h"

enum { NB = 4 }; /* int64s per block: count, digest, index, the datatype's mpidbg_xc_type_code */

int mpidbg_nbr_kind(int kind)
{
    return kind == MPIDBG_CALL_MPI_Neighbor_allgather || kind == MPIDBG_CALL_MPI_Neighbor_allgatherv ||
           kind == MPIDBG_CALL_MPI_Neighbor_alltoall || kind == MPIDBG_CALL_MPI_Neighbor_alltoallv ||
           kind == MPIDBG_CALL_MPI_Neighbor_alltoallw;
}

/* block is one edge's entry: count, digest, the edge's index and the
 * datatype, for the report; count < 0: nothing to compare (MPI_PACKED
 * matches any signature of its size, §5.2) */
static void block(int64_t *b, MPI_Datatype t, int64_t n, int index)
{
    b[2] = index;
    b[3] = mpidbg_xc_type_code(t);
    if (t == MPI_PACKED || t == MPI_DATATYPE_NULL || n < 0) {
        b[0] = -1, b[1] = 0;
        return;
    }
    b[1] = (int64_t)mpidbg_type_sighash(t, n);
    b[0] = mpidbg_xc_comparable(n, b[1]);
}

struct mpidbg_nbr *mpidbg_nbr_new(struct mpidbg_cobj *co, const struct mpidbg_xc *xc)
{
    struct mpidbg_nbr *nb;
    int topo = MPI_UNDEFINED;
    if (!mpidbg_nbr_kind(xc->kind) || co->inter || co->indeg < 0 || co->outdeg < 0 || !mpidbg_xr_has(co) ||
        !mpidbg_enabled(MPIDBG_F_COLLECTIVE_TYPE_MISMATCH))
        return NULL;
    /* a shadow made without the program's topology cannot pair edges */
    if (PMPI_Topo_test(co->xr, &topo) != MPI_SUCCESS || topo == MPI_UNDEFINED)
        return NULL;
    int nout = co->outdeg, nin = co->indeg;
    int w = xc->kind == MPIDBG_CALL_MPI_Neighbor_alltoallw;
    int vs = w || xc->kind == MPIDBG_CALL_MPI_Neighbor_alltoallv;
    int vr = vs || xc->kind == MPIDBG_CALL_MPI_Neighbor_allgatherv;
    if ((vs && nout && !xc->scounts) || (vr && nin && !xc->rcounts) || (w && ((nout && !xc->stypes) || (nin && !xc->rtypes))))
        return NULL; /* the argument checks said so */
    nb = calloc(1, sizeof *nb + sizeof(int64_t) * NB * ((size_t)nout + 2 * (size_t)nin + 3));
    if (!nb)
        return NULL;
    nb->nout = nout;
    nb->nin = nin;
    nb->topo = topo;
    nb->out = (int64_t *)(nb + 1);
    nb->want = nb->out + NB * (nout + 1);
    nb->got = nb->want + NB * (nin + 1);
    nb->r = MPI_REQUEST_NULL;
    for (int j = 0; j < nout; j++)
        block(&nb->out[NB * j], w ? xc->stypes[j] : xc->stype, vs ? mpidbg_xc_count_at(xc->scounts, xc->scelem, j) : xc->scount, j);
    for (int i = 0; i < nin; i++) {
        block(&nb->want[NB * i], w ? xc->rtypes[i] : xc->rtype, vr ? mpidbg_xc_count_at(xc->rcounts, xc->rcelem, i) : xc->rcount, i);
        nb->got[NB * i] = -1; /* an MPI_PROC_NULL neighbour sends nothing */
        nb->got[NB * i + 2] = -1;
    }
    return nb;
}

int mpidbg_nbr_start(struct mpidbg_cobj *co, struct mpidbg_nbr *nb)
{
    if (PMPI_Ineighbor_alltoall(nb->out, NB, MPI_INT64_T, nb->got, NB, MPI_INT64_T, co->xr, &nb->r) != MPI_SUCCESS) {
        nb->r = MPI_REQUEST_NULL;
        return 0;
    }
    return 1;
}

int mpidbg_nbr_step(struct mpidbg_nbr *nb, int wait)
{
    if (nb->r == MPI_REQUEST_NULL)
        return 1;
    if (wait)
        return mpidbg_xr_wait(&nb->r), 1;
    int done = 0;
    if (PMPI_Test(&nb->r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return 0; /* MPI may still write into it */
    return done;
}

/* sources fills src with the communicator rank of each in-neighbour
 * (MPI-4.1 §8.6: a Cartesian communicator's are, per dimension, the
 * source then the destination of MPI_Cart_shift by 1; a graph's and a
 * distributed graph's in the order their neighbour queries give); 0 when
 * MPI would not say. */
static int sources(struct mpidbg_cobj *co, const struct mpidbg_nbr *nb, int *src)
{
    if (nb->topo == MPI_CART) {
        for (int d = 0; d < nb->nin / 2; d++)
            if (PMPI_Cart_shift(co->xr, d, 1, &src[2 * d], &src[2 * d + 1]) != MPI_SUCCESS)
                return 0;
        return 1;
    }
    int ok = 0, n = nb->nin > nb->nout ? nb->nin : nb->nout;
    int *dst = calloc((size_t)n + 1, sizeof *dst), *ws = calloc((size_t)n + 1, sizeof *ws),
        *wd = calloc((size_t)n + 1, sizeof *wd);
    if (dst && ws && wd) {
        if (nb->topo == MPI_GRAPH)
            ok = PMPI_Graph_neighbors(co->xr, co->rank, nb->nin, src) == MPI_SUCCESS;
        else if (nb->topo == MPI_DIST_GRAPH)
            ok = PMPI_Dist_graph_neighbors(co->xr, nb->nin, src, ws, nb->nout, dst, wd) == MPI_SUCCESS;
    }
    free(dst);
    free(ws);
    free(wd);
    return ok;
}

/* partner is the slot holding the block the standard pairs with slot i:
 * among the slots from the same process, the one with the sender's index
 * i^1 (Cartesian), or the k-th smallest sender's index where i is the
 * k-th slot from that process (graphs); -1 when none came. */
static int partner(const struct mpidbg_nbr *nb, const int *src, int i)
{
    if (nb->topo == MPI_CART) {
        for (int j = 0; j < nb->nin; j++)
            if (src[j] == src[i] && nb->got[NB * j + 2] == (i ^ 1))
                return j;
        return -1;
    }
    int k = 0;
    for (int j = 0; j < i; j++)
        k += src[j] == src[i];
    /* the slot from src[i] with exactly k smaller sender's indices */
    for (int j = 0; j < nb->nin; j++) {
        if (src[j] != src[i] || nb->got[NB * j + 2] < 0)
            continue;
        int below = 0;
        for (int l = 0; l < nb->nin; l++)
            below += src[l] == src[i] && nb->got[NB * l + 2] >= 0 && nb->got[NB * l + 2] < nb->got[NB * j + 2];
        if (below == k)
            return j;
    }
    return -1;
}

void mpidbg_nbr_judge(struct mpidbg_cobj *co, const struct mpidbg_nbr *nb, uint64_t site, int call, int kind)
{
    int *src = calloc((size_t)nb->nin + 1, sizeof *src);
    if (!src || !sources(co, nb, src)) {
        free(src);
        return;
    }
    for (int i = 0; i < nb->nin; i++) {
        if (src[i] == MPI_PROC_NULL)
            continue;
        int j = partner(nb, src, i);
        const int64_t *want = &nb->want[NB * i], *got = j >= 0 ? &nb->got[NB * j] : NULL;
        if (!got || got[0] < 0 || want[0] < 0 || got[1] == want[1])
            continue;
        struct mpidbg_pairing pr = {got[0], want[0], i, mpidbg_xr_world_of(co, src[i]), (uint32_t)got[3], (uint32_t)want[3]};
        int32_t me = mpidbg_world_rank;
        mpidbg_xc_report_pairs(co, site, call, kind, &me, 1, 1, &pr);
        break;
    }
    free(src);
}

void mpidbg_nbr_free(struct mpidbg_nbr *nb)
{
    free(nb);
}
