/* Datatypes: the records of predefined and derived types, their
 * lifecycle (commit, free, the references MPI_Type_get_contents hands
 * out) and names. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "objects.h"

/* Creation numbers (the records' serial), under the lock. */
static uint32_t type_serial;

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

/* basic_of_f90 maps a type from MPI_Type_create_f90_* to the Fortran
 * type of its size, MPI_REALn, MPI_COMPLEXn or MPI_INTEGERn
 * (datatype.Basic): its representation. MPI-4.1 §19.1.9 has such a type
 * match only one made with the same (p, r), which the model does not
 * tell apart: it misses a mismatch between two of one size, never reports
 * one that is not. */
static int basic_of_f90(int combiner, int64_t size)
{
    switch (combiner) {
    case MPI_COMBINER_F90_REAL:
        return size == 2 ? 53 : size == 4 ? 54 : size == 8 ? 55 : size == 16 ? 56 : 0;
    case MPI_COMBINER_F90_COMPLEX:
        return size == 4 ? 57 : size == 8 ? 58 : size == 16 ? 59 : size == 32 ? 60 : 0;
    case MPI_COMBINER_F90_INTEGER:
        return size == 1 ? 48 : size == 2 ? 49 : size == 4 ? 50 : size == 8 ? 51 : size == 16 ? 52 : 0;
    }
    return 0;
}

/* renamed: o's handle now names the type whose bounds are in b (under
 * the writer lock): what the old type's handle carried is forgotten */
static void renamed(struct mpidbg_tobj *o, const struct mpidbg_tobj *b)
{
    o->xr_state = 0; /* the old signature is not this type's (the blob stays: a reader may hold it) */
    o->xr_node = 0;  /* nor the old description in the node arena */
    mpidbg_type_sighash_forget(o);
    o->size = b->size;
    o->lb = b->lb;
    o->extent = b->extent;
    o->true_lb = b->true_lb;
    o->true_ub = b->true_ub;
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
    if (o && o->rec && (o->rec->state & MPIDBG_FREED)) {
        /* a freed derived type's handle value, which MPI gave this type
         * (Open MPI reuses the object's memory, MPICH the handle's slot):
         * the object now says what this one is. Its old record stays in
         * the registry's table, freed. */
        struct mpidbg_tobj tmp;
        type_bounds(t, &tmp);
        mpidbg_wlock();
        o->rec = NULL;
        o->predef = 1;
        o->basic = basic;
        o->opaque = 0;
        o->refs = 0;
        o->call = -1;
        renamed(o, &tmp);
        if (basic > 0)
            mpidbg_predef_add(h, basic, PMPI_Type_c2f(t));
        mpidbg_wunlock();
        return o;
    }
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
        mpidbg_predef_add(h, basic, PMPI_Type_c2f(t));
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

int64_t mpidbg_packed_span(int64_t at, int64_t n, int64_t count, MPI_Datatype type)
{
    int64_t left = n - at, bytes;
    struct mpidbg_tinfo ti;
    if (count >= 0 && mpidbg_tinfo_get(MPIDBG_H(type), &ti) == 0 && ti.ok && ti.size >= 0 &&
        !__builtin_mul_overflow(count, ti.size, &bytes) && bytes < left)
        return bytes;
    return left;
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

/* envelope is MPI_Type_get_envelope's answer about t; large says t was
 * made with large counts (an MPI-4 _c constructor), whose contents the
 * shim does not read. MPICH refuses the classic query on such a type
 * ("use MPI_Type_get_envelope_c"), through the fatal error handler: the
 * large-count query answers for every type. */
static int envelope(MPI_Datatype t, int *ni, int *na, int *nt, int *comb, int *large)
{
    *large = 0;
#if MPI_VERSION >= 4 && !defined(OPEN_MPI)
    MPI_Count ci = 0, ca = 0, cl = 0, ct = 0;
    int rc = PMPI_Type_get_envelope_c(t, &ci, &ca, &cl, &ct, comb);
    if (rc != MPI_SUCCESS)
        return rc;
    *large = cl > 0 || ci > INT_MAX || ca > INT_MAX || ct > INT_MAX;
    *ni = *large ? 0 : (int)ci;
    *na = *large ? 0 : (int)ca;
    *nt = *large ? 0 : (int)ct;
    return MPI_SUCCESS;
#else
    return PMPI_Type_get_envelope(t, ni, na, nt, comb);
#endif
}

/* free_returned releases the reference MPI_Type_get_contents gave the
 * shim on a derived datatype it returned (MPI-4.1 §5.1.13: returned
 * derived datatypes are new handles the caller frees). */
static void free_returned(MPI_Datatype t)
{
    if (MPIDBG_IS_BUILTIN_TYPE(t) || t == MPI_DATATYPE_NULL)
        return;
    int ni, na, nt, c, large;
    if (envelope(t, &ni, &na, &nt, &c, &large) != MPI_SUCCESS)
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
    int ni = 0, na = 0, nt = 0, comb = 0, large = 0;
    if (envelope(t, &ni, &na, &nt, &comb, &large) != MPI_SUCCESS)
        return;
    if (large) {
        mpidbg_type_opaque(t); /* valid, not modelled, as the _c constructors' own */
        return;
    }
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
    r->fhandle = PMPI_Type_c2f(t);
    r->overlap_count = -1;
    __atomic_store_n(&r->state, MPIDBG_LIVE, __ATOMIC_RELEASE);
    o->handle = h;
    o->predef = 0;
    o->opaque = 0;
    o->refs = 1;
    o->call = cx->call;
    renamed(o, &tmp); /* a fresh object or a reused handle's */
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

void mpidbg_type_set_name(MPI_Datatype t, const char *name)
{
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, MPIDBG_H(t));
    if (!o || !o->rec || !name)
        return;
    mpidbg_wlock();
    mpidbg_copy_name(o->rec->name, name);
    mpidbg_type_renamed(MPIDBG_H(t));
    mpidbg_wunlock();
}
