/*
 * MPI objects as the shim records them: datatypes, communicators,
 * groups, operations and windows, one file each (objects_type.c,
 * objects_comm.c, objects_group.c, objects_op.c, objects_win.c); this file
 * holds what they share. Each handle has a private object (in a handle
 * map, for the checks) and a registry record (for debuggers). A freed
 * object keeps both, so that later uses of the handle can be
 * reported as uses after free; when MPI hands the same handle value to a
 * new object, both are reused and the record gets a new serial.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "objects.h"

/* mpidbg_copy_name copies a name into a record's fixed field,
 * NUL-terminated. */
void mpidbg_copy_name(char *dst, const char *src)
{
    size_t n = strnlen(src, MPIDBG_NAME_MAX - 1);
    memset(dst, 0, MPIDBG_NAME_MAX);
    memcpy(dst, src, n);
}

struct mpidbg_hmap mpidbg_types, mpidbg_comms, mpidbg_groups, mpidbg_ops, mpidbg_wins, mpidbg_requests;

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

/* mpidbg_nested_freed records a free the program made inside another MPI
 * call, which the wrapper let through unchecked (mpidbg_bypass): an
 * attribute's delete callback that frees the communicator, datatype or
 * window it cached (mpi4py's and many libraries' do) runs inside
 * MPI_Comm_free.
 * Only the registry's state changes; a datatype's free site is the
 * callback's call. */
void mpidbg_nested_freed(int kind, uint64_t h, uint32_t serial, void *ra)
{
    if (!serial)
        return; /* not one the registry holds */
    switch (kind) {
    case MPIDBG_OBJ_TYPE: {
        struct mpidbg_cx cx;
        memset(&cx, 0, sizeof cx);
        cx.site = (uint64_t)(uintptr_t)ra;
        mpidbg_type_freed(&cx, h, serial);
        break;
    }
    case MPIDBG_OBJ_COMM:
        mpidbg_comm_freed(NULL, h, serial);
        break;
    case MPIDBG_OBJ_GROUP:
        mpidbg_group_freed(NULL, h, serial);
        break;
    case MPIDBG_OBJ_OP:
        mpidbg_op_freed(NULL, h, serial);
        break;
    case MPIDBG_OBJ_WIN:
        mpidbg_win_freed(NULL, h, serial);
        break;
    }
}

/* ---- shadow objects and their records ---- */

/* mpidbg_slot_for reuses obj and its record rec (MPI gave a freed
 * object's handle to a new one) or makes both, and clears the record. A result with obj
 * NULL means memory ran out: the object goes unrecorded, and a later call
 * with its handle adopts it (probe.c). */
struct mpidbg_slot mpidbg_slot_for(void *obj, void *rec, struct mpidbg_table *tab, size_t objsize, size_t recsize)
{
    struct mpidbg_slot s = {obj, rec, 0};
    if (!obj) {
        s.rec = mpidbg_table_add(tab, NULL);
        s.obj = s.rec ? calloc(1, objsize) : NULL;
        if (!s.obj)
            return (struct mpidbg_slot){0};
        s.fresh = 1;
    }
    memset(s.rec, 0, recsize);
    return s;
}

/* mpidbg_slot_publish makes a fresh slot visible: the record to registry
 * readers, the shadow to handle lookups. */
void mpidbg_slot_publish(struct mpidbg_slot s, struct mpidbg_table *tab, struct mpidbg_hmap *map, uint64_t h)
{
    if (s.fresh) {
        mpidbg_table_publish(tab);
        mpidbg_hmap_put(map, h, s.obj);
    }
}

/* mpidbg_world_ranks_of_group is the MPI_COMM_WORLD rank of each of
 * g's n members, NULL when memory ran out. */
int32_t *mpidbg_world_ranks_of_group(MPI_Group g, int n)
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
