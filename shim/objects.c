/*
 * MPI objects as the shim records them: datatypes, communicators,
 * groups, operations and windows. Each handle has a private object (in a
 * handle map, for the checks) and a registry record (for debuggers). A
 * freed object keeps both, so that later uses of the handle can be
 * reported as uses after free; when MPI hands the same handle value to a
 * new object, both are reused and the record gets a new serial.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "shim.h"

/* copy_name copies a name into a record's fixed field, NUL-terminated. */
static void copy_name(char *dst, const char *src)
{
    size_t n = strnlen(src, MPIDBG_NAME_MAX - 1);
    memset(dst, 0, MPIDBG_NAME_MAX);
    memcpy(dst, src, n);
}

struct mpidbg_hmap mpidbg_types, mpidbg_comms, mpidbg_groups, mpidbg_ops, mpidbg_wins, mpidbg_requests;

/* Creation numbers per table (the records' serial), under the lock. */
static uint32_t type_serial, comm_serial, group_serial, op_serial, win_serial;

/* ---- datatypes ---- */

static int combiner_of(int c)
{
    switch (c) {
    case MPI_COMBINER_DUP: return 1;
    case MPI_COMBINER_CONTIGUOUS: return 2;
    case MPI_COMBINER_VECTOR: return 3;
    case MPI_COMBINER_HVECTOR:
#if defined(MPI_COMBINER_HVECTOR_INTEGER) && !defined(OPEN_MPI) /* Open MPI 4 turns the name into an error */
    case MPI_COMBINER_HVECTOR_INTEGER:
#endif
        return 4;
    case MPI_COMBINER_INDEXED: return 5;
    case MPI_COMBINER_HINDEXED:
#if defined(MPI_COMBINER_HINDEXED_INTEGER) && !defined(OPEN_MPI) /* Open MPI 4 turns the name into an error */
    case MPI_COMBINER_HINDEXED_INTEGER:
#endif
        return 6;
    case MPI_COMBINER_INDEXED_BLOCK: return 7;
    case MPI_COMBINER_HINDEXED_BLOCK: return 8;
    case MPI_COMBINER_STRUCT:
#if defined(MPI_COMBINER_STRUCT_INTEGER) && !defined(OPEN_MPI) /* Open MPI 4 turns the name into an error */
    case MPI_COMBINER_STRUCT_INTEGER:
#endif
        return 9;
    case MPI_COMBINER_SUBARRAY: return 10;
    case MPI_COMBINER_DARRAY: return 11;
    case MPI_COMBINER_RESIZED: return 12;
    }
    return -1;
}

static int is_f90(int c)
{
    return c == MPI_COMBINER_F90_REAL || c == MPI_COMBINER_F90_COMPLEX || c == MPI_COMBINER_F90_INTEGER;
}

/* basic_of_f90 maps a type from MPI_Type_create_f90_* to the C type of
 * the same representation, when there is one (datatype.Basic). */
static int basic_of_f90(int combiner, int64_t size)
{
    switch (combiner) {
    case MPI_COMBINER_F90_REAL:
        return size == 4 ? 14 : size == 8 ? 15 : size == 16 ? 16 : 0;
    case MPI_COMBINER_F90_COMPLEX:
        return size == 8 ? 26 : size == 16 ? 27 : size == 32 ? 28 : 0;
    case MPI_COMBINER_F90_INTEGER:
        return size == 1 ? 17 : size == 2 ? 18 : size == 4 ? 19 : size == 8 ? 20 : 0;
    }
    return 0;
}

static void type_bounds(MPI_Datatype t, struct mpidbg_tobj *o)
{
    MPI_Count size = 0, lb = 0, extent = 0, tlb = 0, textent = 0;
    PMPI_Type_size_x(t, &size);
    PMPI_Type_get_extent_x(t, &lb, &extent);
    PMPI_Type_get_true_extent_x(t, &tlb, &textent);
    o->size = size;
    o->lb = lb;
    o->extent = extent;
    o->true_lb = tlb;
    o->true_ub = tlb + textent;
}

/* mpidbg_type_predefined records a predefined datatype's private object
 * (the builtin ones are known by their handle bits and need none; the
 * pair types and the types of MPI_Type_create_f90_* do). */
struct mpidbg_tobj *mpidbg_type_predefined(MPI_Datatype t, int basic)
{
    uint64_t h = MPIDBG_H(t);
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, h);
    if (o)
        return o;
    o = calloc(1, sizeof *o);
    if (!o)
        return NULL; /* out of memory: the type goes unrecorded, the program on */
    o->handle = h;
    o->predef = 1;
    o->basic = basic;
    o->call = -1;
    type_bounds(t, o);
    mpidbg_wlock();
    if (!mpidbg_hmap_get(&mpidbg_types, h))
        mpidbg_hmap_put(&mpidbg_types, h, o);
    if (basic > 0)
        mpidbg_predef_add(h, basic);
    mpidbg_wunlock();
    return o;
}

/* mpidbg_type_opaque records a datatype MPI accepts but no recorded
 * call made (probe.c): known, usable, not modelled. */
struct mpidbg_tobj *mpidbg_type_opaque(MPI_Datatype t)
{
    uint64_t h = MPIDBG_H(t);
    struct mpidbg_tobj tmp;
    type_bounds(t, &tmp);
    mpidbg_wlock();
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, h);
    int fresh = !o;
    if (!o)
        o = calloc(1, sizeof *o);
    if (o && !o->rec) {
        o->handle = h;
        o->opaque = 1;
        o->refs = 1;
        o->call = -1;
        o->size = tmp.size;
        o->lb = tmp.lb;
        o->extent = tmp.extent;
        o->true_lb = tmp.true_lb;
        o->true_ub = tmp.true_ub;
        if (fresh)
            mpidbg_hmap_put(&mpidbg_types, h, o);
    }
    mpidbg_wunlock();
    return o;
}

/* mpidbg_tinfo_get describes a datatype for the checks: 0 usable (and
 * committed, or predefined), 1 MPI_DATATYPE_NULL, 2 unknown, 3 freed, 4
 * not committed. ti is filled whenever the type is known. */
int mpidbg_tinfo_get(uint64_t h, struct mpidbg_tinfo *ti)
{
    ti->handle = h;
    ti->ok = 0;
    ti->site = 0;
    ti->call = -1;
    int64_t s = MPIDBG_BUILTIN_TYPE_SIZE_OR(h); /* one lookup: -1 when not builtin */
    if (MPIDBG_LIKELY(s >= 0)) {
        ti->ok = ti->builtin = 1;
        ti->size = ti->extent = ti->true_ub = s;
        ti->true_lb = 0;
        ti->overlap_count = 0;
        return 0;
    }
    if (h == MPIDBG_H(MPI_DATATYPE_NULL))
        return 1;
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, h);
    if (!o || (o->opaque && o->refs <= 0))
        return 2;
    ti->ok = 1;
    ti->builtin = o->predef;
    ti->size = o->size;
    ti->extent = o->extent;
    ti->true_lb = o->true_lb;
    ti->true_ub = o->true_ub;
    if (o->predef) {
        ti->overlap_count = 0;
        return 0;
    }
    if (o->opaque) {
        ti->overlap_count = -1;
        return 0;
    }
    struct mpidbg_type *r = o->rec;
    uint32_t st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
    ti->overlap_count = __atomic_load_n(&r->overlap_count, __ATOMIC_RELAXED);
    ti->site = r->site;
    ti->call = o->call;
    if (st & MPIDBG_FREED)
        return 3;
    if (!(st & MPIDBG_COMMITTED))
        return 4;
    return 0;
}

uint64_t mpidbg_type_record_addr(uint64_t h)
{
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, h);
    return o && o->rec ? (uint64_t)(uintptr_t)o->rec : 0;
}

/* free_returned releases the reference MPI_Type_get_contents gave the
 * shim on a derived datatype it returned (MPI-4.1 §5.1.13: returned
 * derived datatypes are new handles the caller frees). */
static void free_returned(MPI_Datatype t)
{
    if (MPIDBG_IS_BUILTIN_TYPE(t) || t == MPI_DATATYPE_NULL)
        return;
    int ni, na, nt, c;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nt, &c) != MPI_SUCCESS)
        return;
    if (c == MPI_COMBINER_NAMED || is_f90(c))
        return;
    PMPI_Type_free(&t);
}

/* mpidbg_type_new records the datatype a constructor returned, with its
 * arguments as MPI_Type_get_contents gives them; oldtypes are the
 * constructor's old types as the program gave them (NULL, 0: none). */
void mpidbg_type_new(struct mpidbg_cx *cx, MPI_Datatype t, const MPI_Datatype *oldtypes, int64_t noldtypes)
{
    if (t == MPI_DATATYPE_NULL || MPIDBG_IS_BUILTIN_TYPE(t))
        return;
    int ni = 0, na = 0, nt = 0, comb = 0;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nt, &comb) != MPI_SUCCESS)
        return;
    if (comb == MPI_COMBINER_NAMED || is_f90(comb)) {
        /* MPI_Type_match_size, MPI_Type_create_f90_*: predefined types */
        struct mpidbg_tobj tmp;
        type_bounds(t, &tmp);
        mpidbg_type_predefined(t, is_f90(comb) ? basic_of_f90(comb, tmp.size) : 0);
        return;
    }
    int32_t *ints = malloc(sizeof(int32_t) * (ni ? ni : 1));
    int64_t *addrs = malloc(sizeof(int64_t) * (na ? na : 1));
    uint64_t *types = malloc(sizeof(uint64_t) * (nt ? nt : 1));
    MPI_Datatype *dts = malloc(sizeof(MPI_Datatype) * (nt ? nt : 1));
    MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (na ? na : 1));
    int *iints = malloc(sizeof(int) * (ni ? ni : 1));
    if (!ints || !addrs || !types || !dts || !aints || !iints) {
        /* out of memory: the type goes unrecorded (later calls adopt it,
         * see probe.c); never take the program down */
        free(ints), free(addrs), free(types), free(dts), free(aints), free(iints);
        return;
    }
    PMPI_Type_get_contents(t, ni, na, nt, iints, aints, dts);
    for (int i = 0; i < ni; i++)
        ints[i] = iints[i];
    for (int i = 0; i < na; i++)
        addrs[i] = aints[i];
    /* the program's own old types when the wrapper has them: the
     * returned ones may be new objects, freed here, whose handle values
     * a later type can take */
    int given = oldtypes && noldtypes == nt;
    for (int i = 0; i < nt; i++) {
        types[i] = MPIDBG_H(given ? oldtypes[i] : dts[i]);
        free_returned(dts[i]);
    }
    free(dts);
    free(aints);
    free(iints);

    struct mpidbg_tobj tmp;
    type_bounds(t, &tmp);
    uint64_t h = MPIDBG_H(t);

    mpidbg_wlock();
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, h);
    struct mpidbg_type *r;
    uint32_t serial;
    int fresh = 0;
    if (o && o->rec) {
        r = o->rec;
        free((void *)(uintptr_t)r->ints);
        free((void *)(uintptr_t)r->addrs);
        free((void *)(uintptr_t)r->types);
    } else if (o && !o->opaque) {
        mpidbg_wunlock(); /* a predefined type's handle: nothing to record */
        return;
    } else {
        r = mpidbg_table_add(&mpidbg_registry.types, NULL);
        if (!r) {
            mpidbg_wunlock();
            return;
        }
        if (!o) {
            o = calloc(1, sizeof *o);
            if (!o) {
                free(ints), free(addrs), free(types);
                mpidbg_wunlock();
                return;
            }
            fresh = 1;
        }
    }
    serial = ++type_serial;
    memset(r, 0, sizeof *r);
    r->handle = h;
    r->site = cx->site;
    r->ints = (uint64_t)(uintptr_t)ints;
    r->addrs = (uint64_t)(uintptr_t)addrs;
    r->types = (uint64_t)(uintptr_t)types;
    r->nints = ni;
    r->naddrs = na;
    r->ntypes = nt;
    r->combiner = combiner_of(comb);
    r->serial = serial;
    r->size = tmp.size;
    r->lb = tmp.lb;
    r->extent = tmp.extent;
    r->true_lb = tmp.true_lb;
    r->true_extent = tmp.true_ub - tmp.true_lb;
    r->overlap_count = -1;
    __atomic_store_n(&r->state, MPIDBG_LIVE, __ATOMIC_RELEASE);
    o->handle = h;
    o->predef = 0;
    o->opaque = 0;
    o->refs = 1;
    o->call = cx->call;
    o->xr_state = 0; /* a reused handle: the old signature is not this type's (the blob stays: a reader may hold it) */
    o->size = tmp.size;
    o->lb = tmp.lb;
    o->extent = tmp.extent;
    o->true_lb = tmp.true_lb;
    o->true_ub = tmp.true_ub;
    if (!o->rec) {
        o->rec = r;
        mpidbg_table_publish(&mpidbg_registry.types);
    }
    if (fresh)
        mpidbg_hmap_put(&mpidbg_types, h, o);
    mpidbg_wunlock();
    /* no model to forget: a reused handle's record has a new serial */
    /* MPI_Type_dup: the new type has the committed state of the old one
     * (MPI-4.1 §5.1.10) */
    if (comb == MPI_COMBINER_DUP && nt == 1) {
        struct mpidbg_tinfo ti;
        if (mpidbg_tinfo_get(types[0], &ti) == 0)
            mpidbg_type_commit(cx, t);
    }
}

/* mpidbg_type_commit marks t committed and, the first time, asks the
 * model how many instances it takes for a buffer of t to overlap itself. */
void mpidbg_type_commit(struct mpidbg_cx *cx, MPI_Datatype t)
{
    (void)cx;
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, MPIDBG_H(t));
    if (!o || !o->rec)
        return;
    mpidbg_wlock();
    o->rec->state |= MPIDBG_COMMITTED;
    int64_t oc = o->rec->overlap_count;
    mpidbg_wunlock();
    if (oc != -1)
        return;
    oc = mpidbg_go_overlap_count(MPIDBG_H(t));
    mpidbg_wlock();
    o->rec->overlap_count = oc;
    mpidbg_wunlock();
}

/* mpidbg_obj_serial is the serial of the record a handle of kind names
 * now, 0 when it names none (a predefined object, an unknown handle). A
 * free's post hook compares it with what it was before the call: MPI may
 * hand a freed handle to a new object of another thread before the post
 * hook runs, and that object must not be marked freed. */
uint32_t mpidbg_obj_serial(int kind, uint64_t h)
{
    switch (kind) {
    case MPIDBG_OBJ_TYPE: {
        struct mpidbg_tobj *o = MPIDBG_IS_BUILTIN_TYPE(h) ? NULL : mpidbg_hmap_get(&mpidbg_types, h);
        return o && o->rec ? o->rec->serial : 0;
    }
    case MPIDBG_OBJ_COMM: {
        struct mpidbg_cobj *o = mpidbg_hmap_get(&mpidbg_comms, h);
        return o && o->rec ? o->rec->serial : 0;
    }
    case MPIDBG_OBJ_GROUP: {
        struct mpidbg_gobj *o = mpidbg_hmap_get(&mpidbg_groups, h);
        return o && o->rec ? o->rec->serial : 0;
    }
    case MPIDBG_OBJ_OP: {
        struct mpidbg_oobj *o = mpidbg_hmap_get(&mpidbg_ops, h);
        return o && o->rec ? o->rec->serial : 0;
    }
    case MPIDBG_OBJ_WIN: {
        struct mpidbg_wobj *o = mpidbg_hmap_get(&mpidbg_wins, h);
        return o && o->rec ? o->rec->serial : 0;
    }
    }
    return 0;
}

void mpidbg_type_freed(struct mpidbg_cx *cx, uint64_t h, uint32_t serial)
{
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, h);
    if (o && o->opaque) {
        o->refs = 0; /* unknown again: a later use asks MPI */
        return;
    }
    if (!o || !o->rec)
        return;
    mpidbg_wlock();
    if (o->rec->serial == serial && --o->refs <= 0) {
        o->refs = 0;
        o->rec->state = (o->rec->state & ~MPIDBG_LIVE) | MPIDBG_FREED;
        o->rec->free_site = cx->site;
    }
    mpidbg_wunlock();
}

/* mpidbg_type_ref counts a handle MPI_Type_get_contents returned to the
 * program: the program now holds one more handle to free. */
void mpidbg_type_ref(uint64_t h)
{
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, h);
    if (!o || !o->rec)
        return;
    mpidbg_wlock();
    if (o->refs++ == 0)
        o->rec->state = (o->rec->state & ~MPIDBG_FREED) | MPIDBG_LIVE;
    mpidbg_wunlock();
}

/* ---- shadow objects and their records ---- */

/* A slot is an object's shadow (in a handle map) and its registry record,
 * found or made for one handle under the writer lock. */
struct slot {
    void *obj, *rec;
    int fresh; /* made here: slot_publish once the record is filled */
};

/* slot_for reuses obj and its record rec (MPI gave a freed object's handle
 * to a new one) or makes both, and clears the record. A result with obj
 * NULL means memory ran out: the object goes unrecorded, and a later call
 * with its handle adopts it (probe.c). */
static struct slot slot_for(void *obj, void *rec, struct mpidbg_table *tab, size_t objsize, size_t recsize)
{
    struct slot s = {obj, rec, 0};
    if (!obj) {
        s.rec = mpidbg_table_add(tab, NULL);
        s.obj = s.rec ? calloc(1, objsize) : NULL;
        if (!s.obj)
            return (struct slot){0};
        s.fresh = 1;
    }
    memset(s.rec, 0, recsize);
    return s;
}

/* slot_publish makes a fresh slot visible: the record to registry
 * readers, the shadow to handle lookups. */
static void slot_publish(struct slot s, struct mpidbg_table *tab, struct mpidbg_hmap *map, uint64_t h)
{
    if (s.fresh) {
        mpidbg_table_publish(tab);
        mpidbg_hmap_put(map, h, s.obj);
    }
}

/* ---- communicators ---- */

static int32_t *world_ranks_of_group(MPI_Group g, int n)
{
    int32_t *out = malloc(sizeof(int32_t) * (n ? n : 1));
    int *in = malloc(sizeof(int) * (n ? n : 1));
    int *tr = malloc(sizeof(int) * (n ? n : 1));
    MPI_Group wg;
    if (!out || !in || !tr) {
        /* out of memory: the record says the translation is not known */
        free(out), free(in), free(tr);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (n > 0 && PMPI_Group_translate_ranks(g, n, in, wg, tr) != MPI_SUCCESS)
        for (int i = 0; i < n; i++)
            tr[i] = MPI_UNDEFINED;
    PMPI_Group_free(&wg);
    for (int i = 0; i < n; i++)
        out[i] = tr[i];
    free(in);
    free(tr);
    return out;
}

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
        wr = world_ranks_of_group(g, size);
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
    struct slot slot = slot_for(o, o ? o->rec : NULL, &mpidbg_registry.comms, sizeof *o, sizeof *o->rec);
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
    copy_name(r->name, name);
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
    slot_publish(slot, &mpidbg_registry.comms, &mpidbg_comms, h);
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
    copy_name(o->rec->name, name);
    mpidbg_wunlock();
}

void mpidbg_type_set_name(MPI_Datatype t, const char *name)
{
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, MPIDBG_H(t));
    if (!o || !o->rec || !name)
        return;
    mpidbg_wlock();
    copy_name(o->rec->name, name);
    mpidbg_type_renamed(MPIDBG_H(t));
    mpidbg_wunlock();
}

/* ---- groups ---- */

void mpidbg_group_new(struct mpidbg_cx *cx, MPI_Group g, int predef)
{
    if (g == MPI_GROUP_NULL || g == MPI_GROUP_EMPTY)
        return;
    uint64_t h = MPIDBG_H(g);
    struct mpidbg_gobj *o = mpidbg_hmap_get(&mpidbg_groups, h);
    if (o && o->refs > 0) {
        /* MPI returned a group the program already holds (MPICH's
         * MPI_Comm_group): one more handle to free */
        mpidbg_wlock();
        o->refs++;
        mpidbg_wunlock();
        return;
    }
    int size = 0, rank = MPI_UNDEFINED;
    PMPI_Group_size(g, &size);
    PMPI_Group_rank(g, &rank);
    int32_t *wr = world_ranks_of_group(g, size);
    mpidbg_wlock();
    o = mpidbg_hmap_get(&mpidbg_groups, h);
    if (o)
        free((void *)(uintptr_t)o->rec->world_ranks);
    struct slot slot = slot_for(o, o ? o->rec : NULL, &mpidbg_registry.groups, sizeof *o, sizeof *o->rec);
    if (!slot.obj) {
        mpidbg_wunlock();
        free(wr);
        return;
    }
    o = slot.obj;
    struct mpidbg_group *r = slot.rec;
    uint32_t serial = ++group_serial;
    r->handle = h;
    r->site = cx ? cx->site : 0;
    r->world_ranks = (uint64_t)(uintptr_t)wr;
    r->size = size;
    r->rank = rank;
    r->serial = serial;
    r->state = MPIDBG_LIVE | (predef ? MPIDBG_PREDEFINED : 0);
    o->handle = h;
    o->rec = r;
    o->predef = predef;
    o->refs = 1;
    o->call = cx ? cx->call : -1;
    slot_publish(slot, &mpidbg_registry.groups, &mpidbg_groups, h);
    mpidbg_wunlock();
}

void mpidbg_group_freed(struct mpidbg_cx *cx, uint64_t h, uint32_t serial)
{
    (void)cx;
    struct mpidbg_gobj *o = mpidbg_hmap_get(&mpidbg_groups, h);
    if (!o || o->predef)
        return;
    mpidbg_wlock();
    if (o->rec->serial == serial && --o->refs <= 0) {
        o->refs = 0;
        o->rec->state = (o->rec->state & ~MPIDBG_LIVE) | MPIDBG_FREED;
    }
    mpidbg_wunlock();
}

/* ---- operations ---- */

void mpidbg_op_new(struct mpidbg_cx *cx, MPI_Op op, int predef, void *fn, int commute)
{
    if (op == MPI_OP_NULL || MPIDBG_IS_BUILTIN_OP(op))
        return;
    uint64_t h = MPIDBG_H(op);
    mpidbg_wlock();
    struct mpidbg_oobj *o = mpidbg_hmap_get(&mpidbg_ops, h);
    struct slot slot = slot_for(o, o ? o->rec : NULL, &mpidbg_registry.ops, sizeof *o, sizeof *o->rec);
    if (!slot.obj) {
        mpidbg_wunlock();
        return;
    }
    o = slot.obj;
    struct mpidbg_op *r = slot.rec;
    uint32_t serial = ++op_serial;
    r->handle = h;
    r->site = cx ? cx->site : 0;
    r->fn = (uint64_t)(uintptr_t)fn;
    r->commute = commute;
    r->serial = serial;
    r->state = MPIDBG_LIVE | (predef ? MPIDBG_PREDEFINED : 0);
    o->handle = h;
    o->rec = r;
    o->predef = predef;
    o->call = cx ? cx->call : -1;
    slot_publish(slot, &mpidbg_registry.ops, &mpidbg_ops, h);
    mpidbg_wunlock();
}

void mpidbg_op_freed(struct mpidbg_cx *cx, uint64_t h, uint32_t serial)
{
    (void)cx;
    struct mpidbg_oobj *o = mpidbg_hmap_get(&mpidbg_ops, h);
    if (!o || o->predef)
        return;
    mpidbg_wlock();
    if (o->rec->serial == serial)
        o->rec->state = (o->rec->state & ~MPIDBG_LIVE) | MPIDBG_FREED;
    mpidbg_wunlock();
}

/* ---- windows ---- */

void mpidbg_win_new(struct mpidbg_cx *cx, MPI_Win w, void *base, int64_t size, int disp_unit, MPI_Comm comm)
{
    if (w == MPI_WIN_NULL)
        return;
    mpidbg_rma_win_new(cx, w, base, size, disp_unit, comm); /* the race checks' state (rma.c), collectively */
    int gsize = 0;
    MPI_Group g;
    if (PMPI_Win_get_group(w, &g) == MPI_SUCCESS) {
        PMPI_Group_size(g, &gsize);
        PMPI_Group_free(&g);
    }
    uint64_t h = MPIDBG_H(w);
    mpidbg_wlock();
    struct mpidbg_wobj *o = mpidbg_hmap_get(&mpidbg_wins, h);
    struct slot slot = slot_for(o, o ? o->rec : NULL, &mpidbg_registry.wins, sizeof *o, sizeof *o->rec);
    if (!slot.obj) {
        mpidbg_wunlock();
        return;
    }
    o = slot.obj;
    struct mpidbg_win *r = slot.rec;
    uint32_t serial = ++win_serial;
    r->handle = h;
    r->site = cx ? cx->site : 0;
    r->base = (uint64_t)(uintptr_t)base;
    r->size = size;
    r->comm = MPIDBG_H(comm);
    r->disp_unit = disp_unit;
    r->serial = serial;
    r->state = MPIDBG_LIVE;
    o->handle = h;
    o->rec = r;
    o->size = gsize;
    o->call = cx ? cx->call : -1;
    slot_publish(slot, &mpidbg_registry.wins, &mpidbg_wins, h);
    mpidbg_wunlock();
}

void mpidbg_win_freed(struct mpidbg_cx *cx, uint64_t h, uint32_t serial)
{
    (void)cx;
    struct mpidbg_wobj *o = mpidbg_hmap_get(&mpidbg_wins, h);
    if (!o)
        return;
    mpidbg_wlock();
    if (o->rec->serial == serial)
        o->rec->state = (o->rec->state & ~MPIDBG_LIVE) | MPIDBG_FREED;
    mpidbg_wunlock();
}

/* mpidbg_objects_init records MPI's own communicators. */
struct mpidbg_cobj *mpidbg_world;

void mpidbg_objects_init(void)
{
    mpidbg_world = mpidbg_comm_new(NULL, MPI_COMM_WORLD, 1);
    mpidbg_xr_comm_new(mpidbg_world, MPI_COMM_WORLD);
    mpidbg_xr_comm_new(mpidbg_comm_new(NULL, MPI_COMM_SELF, 1), MPI_COMM_SELF);
}
