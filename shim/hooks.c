/*
 * The hand-written parts of generated wrappers: the hooks calls.tbl asks
 * for with +pre and +post (their prototypes are generated into
 * calls_gen.h, so a hook that does not match its MPI function does not
 * compile).
 *
 * Datatype constructors (pre): the arguments are put in the form
 * MPI_Type_get_contents would give them (MPI-4.1 §5.1.13) and checked by
 * the Go model's constructors, whose rule text becomes the finding
 * (invalid-argument). Old types that are not usable were reported by the
 * type checks already and stop this check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

static void ctor_report(struct mpidbg_cx *cx, const char *text)
{
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, MPIDBG_F_INVALID_ARGUMENT, NULL);
    ev.text = text;
    mpidbg_report(cx, &ev);
}

/* ctor_negative reports a negative count of constructor fn before the
 * model sees it (the model would refuse to build anything). */
static int ctor_negative(struct mpidbg_cx *cx, const char *fn, const char *arg, int64_t v)
{
    if (v >= 0)
        return 0;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, cx, MPIDBG_F_INVALID_ARGUMENT, arg);
    ev.variant = MPIDBG_V_NEGATIVE;
    ev.text = fn;
    ev.val = v;
    mpidbg_report(cx, &ev);
    return 1;
}

static void ctor_check(struct mpidbg_cx *cx, int combiner, int32_t *ints, int ni, int64_t *addrs, int na,
                       const MPI_Datatype *types, int nt)
{
    uint64_t th[nt > 0 ? nt : 1];
    for (int i = 0; i < nt; i++) {
        struct mpidbg_tinfo ti;
        int r = mpidbg_tinfo_get(MPIDBG_H(types[i]), &ti);
        if (r >= 1 && r <= 3)
            return;
        th[i] = MPIDBG_H(types[i]);
    }
    char text[512];
    text[0] = 0;
    if (mpidbg_go_ctor_check(combiner, ints, ni, addrs, na, th, nt, text, sizeof text) == 1)
        ctor_report(cx, text);
}

/* copy32 appends n ints to v at *k. */
static void copy32(int32_t *v, int *k, const int *a, int n)
{
    for (int i = 0; i < n; i++)
        v[(*k)++] = a[i];
}

void mpidbg_pre_MPI_Type_contiguous(struct mpidbg_cx *cx, int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    (void)newtype;
    if (ctor_negative(cx, "contiguous", "count", count))
        return;
    int32_t ints[1] = {count};
    ctor_check(cx, 2, ints, 1, NULL, 0, &oldtype, 1);
}

void mpidbg_pre_MPI_Type_vector(struct mpidbg_cx *cx, int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    (void)newtype;
    int32_t ints[3] = {count, blocklength, stride};
    ctor_check(cx, 3, ints, 3, NULL, 0, &oldtype, 1);
}

void mpidbg_pre_MPI_Type_create_hvector(struct mpidbg_cx *cx, int count, int blocklength, MPI_Aint stride,
                                        MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    (void)newtype;
    int32_t ints[2] = {count, blocklength};
    int64_t addrs[1] = {stride};
    ctor_check(cx, 4, ints, 2, addrs, 1, &oldtype, 1);
}

void mpidbg_pre_MPI_Type_hvector(struct mpidbg_cx *cx, int count, int blocklength, MPI_Aint stride,
                                 MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mpidbg_pre_MPI_Type_create_hvector(cx, count, blocklength, stride, oldtype, newtype);
}

static void indexed(struct mpidbg_cx *cx, const char *fn, int combiner, int count, const int bl[], const int di[],
                    const MPI_Aint da[], MPI_Datatype oldtype)
{
    if (ctor_negative(cx, fn, "count", count) || (count > 0 && (!bl || (!di && !da))))
        return;
    int ni = 1 + count + (di ? count : 0), k = 0;
    int32_t *ints = malloc(sizeof(int32_t) * (size_t)(ni > 0 ? ni : 1));
    int64_t *addrs = da ? malloc(sizeof(int64_t) * (size_t)(count > 0 ? count : 1)) : NULL;
    if (!ints || (da && !addrs)) {
        free(ints);
        free(addrs);
        return;
    }
    ints[k++] = count;
    copy32(ints, &k, bl, count);
    if (di)
        copy32(ints, &k, di, count);
    for (int i = 0; da && i < count; i++)
        addrs[i] = da[i];
    ctor_check(cx, combiner, ints, ni, addrs, da ? count : 0, &oldtype, 1);
    free(ints);
    free(addrs);
}

void mpidbg_pre_MPI_Type_indexed(struct mpidbg_cx *cx, int count, const int array_of_blocklengths[],
                                 const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    (void)newtype;
    indexed(cx, "indexed", 5, count, array_of_blocklengths, array_of_displacements, NULL, oldtype);
}

void mpidbg_pre_MPI_Type_create_hindexed(struct mpidbg_cx *cx, int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                         MPI_Datatype *newtype)
{
    (void)newtype;
    indexed(cx, "hindexed", 6, count, array_of_blocklengths, NULL, array_of_displacements, oldtype);
}

void mpidbg_pre_MPI_Type_hindexed(struct mpidbg_cx *cx, int count, int array_of_blocklengths[],
                                  MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mpidbg_pre_MPI_Type_create_hindexed(cx, count, array_of_blocklengths, array_of_displacements, oldtype, newtype);
}

static void indexed_block(struct mpidbg_cx *cx, const char *fn, int combiner, int count, int blocklength,
                          const int di[], const MPI_Aint da[], MPI_Datatype oldtype)
{
    if (ctor_negative(cx, fn, "count", count) || (count > 0 && !di && !da))
        return;
    int ni = 2 + (di ? count : 0), k = 0;
    int32_t *ints = malloc(sizeof(int32_t) * (size_t)(ni > 0 ? ni : 1));
    int64_t *addrs = da ? malloc(sizeof(int64_t) * (size_t)(count > 0 ? count : 1)) : NULL;
    if (!ints || (da && !addrs)) {
        free(ints);
        free(addrs);
        return;
    }
    ints[k++] = count;
    ints[k++] = blocklength;
    if (di)
        copy32(ints, &k, di, count);
    for (int i = 0; da && i < count; i++)
        addrs[i] = da[i];
    ctor_check(cx, combiner, ints, ni, addrs, da ? count : 0, &oldtype, 1);
    free(ints);
    free(addrs);
}

void mpidbg_pre_MPI_Type_create_indexed_block(struct mpidbg_cx *cx, int count, int blocklength,
                                              const int array_of_displacements[], MPI_Datatype oldtype,
                                              MPI_Datatype *newtype)
{
    (void)newtype;
    indexed_block(cx, "indexed_block", 7, count, blocklength, array_of_displacements, NULL, oldtype);
}

void mpidbg_pre_MPI_Type_create_hindexed_block(struct mpidbg_cx *cx, int count, int blocklength,
                                               const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                               MPI_Datatype *newtype)
{
    (void)newtype;
    indexed_block(cx, "hindexed_block", 8, count, blocklength, NULL, array_of_displacements, oldtype);
}

void mpidbg_pre_MPI_Type_create_struct(struct mpidbg_cx *cx, int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                                       MPI_Datatype *newtype)
{
    (void)newtype;
    if (ctor_negative(cx, "struct", "count", count) ||
        (count > 0 && (!array_of_blocklengths || !array_of_displacements || !array_of_types)))
        return;
    int k = 0;
    int32_t *ints = malloc(sizeof(int32_t) * (size_t)(count > 0 ? 1 + count : 1));
    int64_t *addrs = malloc(sizeof(int64_t) * (size_t)(count > 0 ? count : 1));
    if (!ints || !addrs) {
        free(ints);
        free(addrs);
        return;
    }
    ints[k++] = count;
    copy32(ints, &k, array_of_blocklengths, count);
    for (int i = 0; i < count; i++)
        addrs[i] = array_of_displacements[i];
    ctor_check(cx, 9, ints, 1 + count, addrs, count, array_of_types, count);
    free(ints);
    free(addrs);
}

void mpidbg_pre_MPI_Type_struct(struct mpidbg_cx *cx, int count, int array_of_blocklengths[],
                                MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
                                MPI_Datatype *newtype)
{
    mpidbg_pre_MPI_Type_create_struct(cx, count, array_of_blocklengths, array_of_displacements, array_of_types,
                                      newtype);
}

void mpidbg_pre_MPI_Type_create_subarray(struct mpidbg_cx *cx, int ndims, const int array_of_sizes[],
                                         const int array_of_subsizes[], const int array_of_starts[], int order,
                                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    (void)newtype;
    if (ctor_negative(cx, "subarray", "ndims", ndims) ||
        (ndims > 0 && (!array_of_sizes || !array_of_subsizes || !array_of_starts)))
        return;
    int ni = 2 + 3 * ndims, k = 0;
    int32_t *ints = malloc(sizeof(int32_t) * (size_t)(ni > 0 ? ni : 1));
    if (!ints)
        return;
    ints[k++] = ndims;
    copy32(ints, &k, array_of_sizes, ndims);
    copy32(ints, &k, array_of_subsizes, ndims);
    copy32(ints, &k, array_of_starts, ndims);
    ints[k++] = order;
    ctor_check(cx, 10, ints, ni, NULL, 0, &oldtype, 1);
    free(ints);
}

void mpidbg_pre_MPI_Type_create_darray(struct mpidbg_cx *cx, int size, int rank, int ndims,
                                       const int array_of_gsizes[], const int array_of_distribs[],
                                       const int array_of_dargs[], const int array_of_psizes[], int order,
                                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    (void)newtype;
    if (ctor_negative(cx, "darray", "ndims", ndims) ||
        (ndims > 0 && (!array_of_gsizes || !array_of_distribs || !array_of_dargs || !array_of_psizes)))
        return;
    int ni = 4 + 4 * ndims, k = 0;
    int32_t *ints = malloc(sizeof(int32_t) * (size_t)(ni > 0 ? ni : 1));
    if (!ints)
        return;
    ints[k++] = size;
    ints[k++] = rank;
    ints[k++] = ndims;
    copy32(ints, &k, array_of_gsizes, ndims);
    copy32(ints, &k, array_of_distribs, ndims);
    copy32(ints, &k, array_of_dargs, ndims);
    copy32(ints, &k, array_of_psizes, ndims);
    ints[k++] = order;
    ctor_check(cx, 11, ints, ni, NULL, 0, &oldtype, 1);
    free(ints);
}

void mpidbg_pre_MPI_Type_create_resized(struct mpidbg_cx *cx, MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                        MPI_Datatype *newtype)
{
    (void)newtype;
    int64_t addrs[2] = {lb, extent};
    ctor_check(cx, 12, NULL, 0, addrs, 2, &oldtype, 1);
}

/* MPI_Type_get_contents hands the program new handles to the derived
 * types it returns (MPI-4.1 §5.1.13), which it must free. */
void mpidbg_post_MPI_Type_get_contents(struct mpidbg_cx *cx, MPI_Datatype datatype, int max_integers,
                                       int max_addresses, int max_datatypes, int array_of_integers[],
                                       MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    (void)cx;
    (void)max_integers;
    (void)max_addresses;
    (void)array_of_integers;
    (void)array_of_addresses;
    int ni, na, nt, c;
    if (!array_of_datatypes || PMPI_Type_get_envelope(datatype, &ni, &na, &nt, &c) != MPI_SUCCESS)
        return;
    for (int i = 0; i < nt && i < max_datatypes; i++)
        mpidbg_type_ref(MPIDBG_H(array_of_datatypes[i]));
}

void mpidbg_post_MPI_Type_set_name(struct mpidbg_cx *cx, MPI_Datatype datatype, const char *type_name)
{
    (void)cx;
    mpidbg_type_set_name(datatype, type_name);
}

void mpidbg_post_MPI_Comm_set_name(struct mpidbg_cx *cx, MPI_Comm comm, const char *comm_name)
{
    (void)cx;
    mpidbg_comm_set_name(comm, comm_name);
}

void mpidbg_post_MPI_Comm_get_parent(struct mpidbg_cx *cx, MPI_Comm *parent)
{
    if (parent)
        mpidbg_comm_new(cx, *parent, 1);
}

/* window_memory checks what a window is made of (MPI-4.1 §12.2): a
 * non-negative size, a positive displacement unit, and a base for a
 * non-zero size (has_base 0: the call allocates the memory). */
static void window_memory(struct mpidbg_cx *cx, int has_base, const void *base, MPI_Aint size, int disp_unit)
{
    struct mpidbg_ev ev;
    if (size < 0) {
        mpidbg_ev_init(&ev, cx, MPIDBG_F_INVALID_WINDOW_MEMORY, "size");
        ev.val = size;
    } else if (disp_unit <= 0) {
        mpidbg_ev_init(&ev, cx, MPIDBG_F_INVALID_WINDOW_MEMORY, "disp_unit");
        ev.val = disp_unit;
    } else if (has_base && !base && size > 0) {
        mpidbg_ev_init(&ev, cx, MPIDBG_F_INVALID_WINDOW_MEMORY, "base");
        ev.val = size;
    } else {
        return;
    }
    mpidbg_report(cx, &ev);
}

void mpidbg_pre_MPI_Win_create(struct mpidbg_cx *cx, void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                               MPI_Comm comm, MPI_Win *win)
{
    (void)comm, (void)win;
    window_memory(cx, 1, base, size, disp_unit);
    mpidbg_rma_info_pre(info);
}

void mpidbg_pre_MPI_Win_allocate(struct mpidbg_cx *cx, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void *baseptr, MPI_Win *win)
{
    (void)comm, (void)baseptr, (void)win;
    window_memory(cx, 0, NULL, size, disp_unit);
    mpidbg_rma_info_pre(info);
}

void mpidbg_pre_MPI_Win_allocate_shared(struct mpidbg_cx *cx, MPI_Aint size, int disp_unit, MPI_Info info,
                                        MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    mpidbg_pre_MPI_Win_allocate(cx, size, disp_unit, info, comm, baseptr, win);
}

void mpidbg_post_MPI_Win_create(struct mpidbg_cx *cx, void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                                MPI_Comm comm, MPI_Win *win)
{
    (void)info;
    mpidbg_win_new(cx, *win, base, size, disp_unit, comm);
    mpidbg_rma_win_info(*win);
}

void mpidbg_post_MPI_Win_allocate(struct mpidbg_cx *cx, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                  void *baseptr, MPI_Win *win)
{
    (void)info;
    mpidbg_win_new(cx, *win, baseptr ? *(void **)baseptr : NULL, size, disp_unit, comm);
    mpidbg_rma_win_info(*win);
}

void mpidbg_post_MPI_Win_allocate_shared(struct mpidbg_cx *cx, MPI_Aint size, int disp_unit, MPI_Info info,
                                         MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    mpidbg_post_MPI_Win_allocate(cx, size, disp_unit, info, comm, baseptr, win);
}

void mpidbg_pre_MPI_Win_create_dynamic(struct mpidbg_cx *cx, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    (void)cx, (void)comm, (void)win;
    mpidbg_rma_info_pre(info);
}

void mpidbg_post_MPI_Win_create_dynamic(struct mpidbg_cx *cx, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    (void)info;
    mpidbg_win_new(cx, *win, NULL, 0, 1, comm);
    mpidbg_rma_win_info(*win);
}

/* A generalized request is completed by MPI_Grequest_complete in
 * whatever thread the program chooses, and the wait that returns for it
 * is a synchronisation between the two threads that the thread clocks
 * (tclock.h) do not follow: they give up, and threads are ordered by time. */
void mpidbg_pre_MPI_Grequest_start(struct mpidbg_cx *cx, MPI_Grequest_query_function *query_fn,
                                   MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn,
                                   void *extra_state, MPI_Request *request)
{
    (void)cx, (void)query_fn, (void)free_fn, (void)cancel_fn, (void)extra_state, (void)request;
    mpidbg_tc_give_up("generalized requests");
}

/* The derived datatypes MPI_File_get_view returns are new handles the
 * program frees (MPI-4.1 §14.3), usable as they come: ROMIO and OMPIO
 * return committed duplicates of the view's types. */
void mpidbg_post_MPI_File_get_view(struct mpidbg_cx *cx, MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                                   MPI_Datatype *filetype, char *datarep)
{
    (void)fh;
    (void)disp;
    (void)datarep;
    if (etype)
        mpidbg_type_commit(cx, *etype);
    if (filetype)
        mpidbg_type_commit(cx, *filetype);
}
