/*
 * The hooks of communicator splitting and process topologies (calls.tbl
 * +pre): the colour of MPI_Comm_split, the grid of MPI_Cart_create and
 * MPI_Dims_create, and the topology the inquiry functions need. Each
 * runs before the MPI library sees the call, whose own error handler
 * would abort the job first (MPI-4.1 §7.4.2, §8.5).
 */
#include "shim.h"

void mpidbg_pre_MPI_Comm_split(struct mpidbg_cx *cx, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    (void)comm, (void)key, (void)newcomm;
    if (color >= 0 || color == MPI_UNDEFINED)
        return;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, MPIDBG_F_INVALID_COLOR, "color");
    ev.val = color;
    mpidbg_report(cx, &ev);
}

/* negative_dim reports the first negative entry of dims; 1 if there was
 * one. */
static int negative_dim(struct mpidbg_cx *cx, int ndims, const int dims[])
{
    for (int i = 0; dims && i < ndims; i++)
        if (dims[i] < 0) {
            struct mpidbg_ev ev;
            mpidbg_ev_init(&ev, cx, MPIDBG_F_INVALID_DIMS, "dims");
            ev.index = i;
            ev.val = dims[i];
            mpidbg_report(cx, &ev);
            return 1;
        }
    return 0;
}

void mpidbg_pre_MPI_Cart_create(struct mpidbg_cx *cx, MPI_Comm comm_old, int ndims, const int dims[],
                                const int periods[], int reorder, MPI_Comm *comm_cart)
{
    (void)periods, (void)reorder, (void)comm_cart;
    if (ndims <= 0 || !dims || negative_dim(cx, ndims, dims) || comm_old == MPI_COMM_NULL)
        return;
    int64_t grid = 1;
    for (int i = 0; i < ndims && grid <= INT32_MAX; i++)
        grid *= dims[i];
    int size = 0;
    if (PMPI_Comm_size(comm_old, &size) != MPI_SUCCESS || grid <= size)
        return;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, MPIDBG_F_INVALID_DIMS, "dims");
    ev.count = grid;
    ev.lim = size;
    mpidbg_report(cx, &ev);
}

void mpidbg_pre_MPI_Dims_create(struct mpidbg_cx *cx, int nnodes, int ndims, int dims[])
{
    (void)nnodes;
    negative_dim(cx, ndims, dims);
}

/* need reports a query on comm that lacks topology want (MPI_CART,
 * MPI_GRAPH, MPI_DIST_GRAPH). MPI_Topo_test is cheap and the queries
 * are rare; a null or unknown comm was reported by its role check. */
static void need(struct mpidbg_cx *cx, MPI_Comm comm, int want)
{
    int status = MPI_UNDEFINED;
    if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &status) != MPI_SUCCESS || status == want)
        return;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, MPIDBG_F_TOPOLOGY_MISMATCH, "comm");
    ev.variant = status == MPI_CART         ? MPIDBG_V_CART
                 : status == MPI_GRAPH      ? MPIDBG_V_GRAPH
                 : status == MPI_DIST_GRAPH ? MPIDBG_V_DIST_GRAPH
                                            : MPIDBG_V_NO_TOPOLOGY;
    mpidbg_report(cx, &ev);
}

void mpidbg_pre_MPI_Cartdim_get(struct mpidbg_cx *cx, MPI_Comm comm, int *ndims)
{
    (void)ndims;
    need(cx, comm, MPI_CART);
}

void mpidbg_pre_MPI_Cart_get(struct mpidbg_cx *cx, MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    (void)maxdims, (void)dims, (void)periods, (void)coords;
    need(cx, comm, MPI_CART);
}

void mpidbg_pre_MPI_Cart_rank(struct mpidbg_cx *cx, MPI_Comm comm, const int coords[], int *rank)
{
    (void)coords, (void)rank;
    need(cx, comm, MPI_CART);
}

void mpidbg_pre_MPI_Cart_coords(struct mpidbg_cx *cx, MPI_Comm comm, int rank, int maxdims, int coords[])
{
    (void)rank, (void)maxdims, (void)coords;
    need(cx, comm, MPI_CART);
}

void mpidbg_pre_MPI_Cart_shift(struct mpidbg_cx *cx, MPI_Comm comm, int direction, int disp, int *rank_source,
                               int *rank_dest)
{
    (void)direction, (void)disp, (void)rank_source, (void)rank_dest;
    need(cx, comm, MPI_CART);
}

void mpidbg_pre_MPI_Graphdims_get(struct mpidbg_cx *cx, MPI_Comm comm, int *nnodes, int *nedges)
{
    (void)nnodes, (void)nedges;
    need(cx, comm, MPI_GRAPH);
}

void mpidbg_pre_MPI_Graph_get(struct mpidbg_cx *cx, MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[])
{
    (void)maxindex, (void)maxedges, (void)indx, (void)edges;
    need(cx, comm, MPI_GRAPH);
}

void mpidbg_pre_MPI_Graph_neighbors_count(struct mpidbg_cx *cx, MPI_Comm comm, int rank, int *nneighbors)
{
    (void)rank, (void)nneighbors;
    need(cx, comm, MPI_GRAPH);
}

void mpidbg_pre_MPI_Graph_neighbors(struct mpidbg_cx *cx, MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    (void)rank, (void)maxneighbors, (void)neighbors;
    need(cx, comm, MPI_GRAPH);
}

void mpidbg_pre_MPI_Dist_graph_neighbors_count(struct mpidbg_cx *cx, MPI_Comm comm, int *indegree, int *outdegree,
                                               int *weighted)
{
    (void)indegree, (void)outdegree, (void)weighted;
    need(cx, comm, MPI_DIST_GRAPH);
}

void mpidbg_pre_MPI_Dist_graph_neighbors(struct mpidbg_cx *cx, MPI_Comm comm, int maxindegree, int sources[],
                                         int sourceweights[], int maxoutdegree, int destinations[], int destweights[])
{
    (void)maxindegree, (void)sources, (void)sourceweights, (void)maxoutdegree, (void)destinations, (void)destweights;
    need(cx, comm, MPI_DIST_GRAPH);
}
