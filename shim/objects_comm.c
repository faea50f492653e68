/* Communicators: their records, the world ranks of their members, names,
 * and MPI's own communicators at MPI_Init. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "objects.h"

/* Creation numbers (the records' serial), under the lock. */
static uint32_t comm_serial;

struct mpidbg_cobj *mpidbg_comm_new(struct mpidbg_cx *cx, MPI_Comm c, int predef)
{
    if (c == MPI_COMM_NULL)
        return NULL;
    int size = 0, rank = MPI_UNDEFINED, inter = 0, rsize = 0, topo = MPI_UNDEFINED;
    int indeg = -1, outdeg = -1;
    PMPI_Comm_size(c, &size);
    PMPI_Comm_rank(c, &rank);
    PMPI_Comm_test_inter(c, &inter);
    if (inter)
        PMPI_Comm_remote_size(c, &rsize);
    int32_t *wr;
    if (c == MPI_COMM_WORLD) {
        wr = malloc(sizeof(int32_t) * (size ? size : 1));
        for (int i = 0; wr && i < size; i++)
            wr[i] = i;
    } else {
        MPI_Group g;
        PMPI_Comm_group(c, &g);
        wr = mpidbg_world_ranks_of_group(g, size);
        PMPI_Group_free(&g);
    }
    if (!inter && PMPI_Topo_test(c, &topo) == MPI_SUCCESS) {
        if (topo == MPI_CART) {
            int nd = 0;
            PMPI_Cartdim_get(c, &nd);
            indeg = outdeg = 2 * nd;
        } else if (topo == MPI_GRAPH) {
            int nn = 0;
            PMPI_Graph_neighbors_count(c, rank, &nn);
            indeg = outdeg = nn;
        } else if (topo == MPI_DIST_GRAPH) {
            int w;
            PMPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &w);
        }
    }
    char name[MPI_MAX_OBJECT_NAME];
    int nl = 0;
    name[0] = 0;
    PMPI_Comm_get_name(c, name, &nl);

    uint64_t h = MPIDBG_H(c);
    mpidbg_wlock();
    struct mpidbg_cobj *o = mpidbg_hmap_get(&mpidbg_comms, h);
    if (o)
        free((void *)(uintptr_t)o->rec->world_ranks);
    struct mpidbg_slot slot = mpidbg_slot_for(o, o ? o->rec : NULL, &mpidbg_registry.comms, sizeof *o, sizeof *o->rec);
    if (!slot.obj) {
        mpidbg_wunlock();
        free(wr);
        return NULL;
    }
    o = slot.obj;
    struct mpidbg_comm *r = slot.rec;
    uint32_t serial = ++comm_serial;
    r->handle = h;
    r->site = cx ? cx->site : 0;
    r->world_ranks = (uint64_t)(uintptr_t)wr;
    r->size = size;
    r->rank = rank;
    r->remote_size = rsize;
    r->serial = serial;
    mpidbg_copy_name(r->name, name);
    r->state = MPIDBG_LIVE | (predef ? MPIDBG_PREDEFINED : 0);
    o->handle = h;
    o->rec = r;
    o->size = size;
    o->rank = rank;
    o->remote_size = rsize;
    o->inter = inter;
    o->indeg = indeg;
    o->outdeg = outdeg;
    o->predef = predef;
    o->freed = 0;
    o->call = cx ? cx->call : -1;
    mpidbg_slot_publish(slot, &mpidbg_registry.comms, &mpidbg_comms, h);
    mpidbg_wunlock();
    return o;
}

void mpidbg_comm_freed(struct mpidbg_cx *cx, uint64_t h, uint32_t serial)
{
    (void)cx;
    struct mpidbg_cobj *o = mpidbg_hmap_get(&mpidbg_comms, h);
    if (!o || o->predef)
        return;
    mpidbg_wlock();
    if (o->rec->serial != serial) {
        mpidbg_wunlock(); /* the handle names a newer communicator already */
        return;
    }
    o->freed = 1;
    o->rec->state = (o->rec->state & ~MPIDBG_LIVE) | MPIDBG_FREED;
    mpidbg_wunlock();
    mpidbg_xr_comm_freed(o);
}

void mpidbg_comm_set_name(MPI_Comm c, const char *name)
{
    struct mpidbg_cobj *o = mpidbg_hmap_get(&mpidbg_comms, MPIDBG_H(c));
    if (!o || !name)
        return;
    mpidbg_wlock();
    mpidbg_copy_name(o->rec->name, name);
    mpidbg_wunlock();
}

/* mpidbg_objects_init records MPI's own communicators. */
struct mpidbg_cobj *mpidbg_world;

void mpidbg_objects_init(void)
{
    mpidbg_world = mpidbg_comm_new(NULL, MPI_COMM_WORLD, 1);
    mpidbg_xr_comm_new(mpidbg_world, MPI_COMM_WORLD, MPI_COMM_NULL);
    mpidbg_xr_comm_new(mpidbg_comm_new(NULL, MPI_COMM_SELF, 1), MPI_COMM_SELF, MPI_COMM_NULL);
}
