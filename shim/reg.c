/*
 * The registry writer: the one exported structure mpidbg_registry
 * (layout in reg.h), its tables in chunks that never move, the
 * private handle maps, the writer lock and the generation seqlock, and
 * the findings ring.
 *
 * Writers (every wrapper's bookkeeping) take one pthread mutex and, inside
 * it, make the generation odd before they change anything and even after,
 * with release ordering. Under MPI_THREAD_FUNNELED or SINGLE the mutex is
 * never contended, so a write costs two uncontended lock operations and
 * two stores. Readers inside the process (the checks) do not lock: the
 * handle maps are never shrunk and records never move, so a lookup needs
 * only acquire loads.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

__attribute__((visibility("default"), used)) struct mpidbg_registry mpidbg_registry;

#define FINDINGS_CAP 64
static struct mpidbg_finding ring[FINDINGS_CAP];

static pthread_mutex_t wmutex = PTHREAD_MUTEX_INITIALIZER;
static uint64_t epoch = 1;

/* mpidbg_mt is set when MPI provides MPI_THREAD_MULTIPLE: only then can
 * two threads be inside wrappers at once, and only then does the writer
 * take the mutex. At lower levels the program serialises its MPI calls,
 * and the seqlock alone keeps outside readers right. */
int mpidbg_mt = 1;

void mpidbg_wlock(void)
{
    if (mpidbg_mt)
        pthread_mutex_lock(&wmutex);
    uint64_t g = mpidbg_registry.generation;
    __atomic_store_n(&mpidbg_registry.generation, g + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

void mpidbg_wunlock(void)
{
    uint64_t g = mpidbg_registry.generation;
    __atomic_store_n(&mpidbg_registry.generation, g + 1, __ATOMIC_RELEASE);
    if (mpidbg_mt)
        pthread_mutex_unlock(&wmutex);
}

static void table_init(struct mpidbg_table *t, uint32_t rec_size, uint32_t first_chunk)
{
    t->rec_size = rec_size;
    t->first_chunk = first_chunk;
}

/* mpidbg_table_add returns zeroed memory for the next record of t, which
 * the caller fills and then publishes with mpidbg_table_publish, both
 * under the writer lock. Chunk c holds first_chunk << c records. */
void *mpidbg_table_add(struct mpidbg_table *t, uint32_t *serial_out)
{
    uint32_t i = t->count;
    uint64_t base = 0;
    int c = 0;
    while (c < MPIDBG_CHUNKS && (uint64_t)i >= base + ((uint64_t)t->first_chunk << c)) {
        base += (uint64_t)t->first_chunk << c;
        c++;
    }
    if (c >= MPIDBG_CHUNKS)
        return NULL;
    if (!t->chunks[c]) {
        void *p = calloc((size_t)t->first_chunk << c, t->rec_size);
        if (!p)
            return NULL;
        __atomic_store_n(&t->chunks[c], (uint64_t)(uintptr_t)p, __ATOMIC_RELEASE);
    }
    if (serial_out)
        *serial_out = i + 1;
    return (char *)(uintptr_t)t->chunks[c] + (size_t)(i - base) * t->rec_size;
}

void mpidbg_table_publish(struct mpidbg_table *t)
{
    __atomic_store_n(&t->count, t->count + 1, __ATOMIC_RELEASE);
}

/* ---- handle maps ---- */

static inline uint64_t hash_slot(uint64_t key, int shift)
{
    return (key * 0x9E3779B97F4A7C15ull) >> shift;
}

void *mpidbg_hmap_get(struct mpidbg_hmap *m, uint64_t key)
{
    struct mpidbg_harr *a = __atomic_load_n(&m->a, __ATOMIC_ACQUIRE);
    if (!a || !key)
        return NULL;
    uint64_t i = hash_slot(key, a->shift);
    for (;;) {
        uint64_t k = __atomic_load_n(&a->s[i].key, __ATOMIC_ACQUIRE);
        if (k == key)
            return a->s[i].val;
        if (k == 0)
            return NULL;
        i = (i + 1) & a->mask;
    }
}

static struct mpidbg_harr *harr_new(int bits)
{
    struct mpidbg_harr *a = calloc(1, sizeof *a + (sizeof(struct mpidbg_hslot) << bits));
    if (!a)
        return NULL;
    a->mask = (1ull << bits) - 1;
    a->shift = 64 - bits;
    return a;
}

static void harr_insert(struct mpidbg_harr *a, uint64_t key, void *val)
{
    uint64_t i = hash_slot(key, a->shift);
    while (a->s[i].key != 0)
        i = (i + 1) & a->mask;
    a->s[i].val = val;
    __atomic_store_n(&a->s[i].key, key, __ATOMIC_RELEASE);
    a->used++;
}

/* mpidbg_hmap_put adds key (absent) under the writer lock. The map grows
 * at half load by building a new array and publishing it; the old array
 * stays allocated, as a reader may still be in it. */
void mpidbg_hmap_put(struct mpidbg_hmap *m, uint64_t key, void *val)
{
    struct mpidbg_harr *a = m->a;
    if (!a) {
        if (!(a = harr_new(6)))
            return; /* out of memory: the object stays unmapped, and a later
                       call with its handle adopts it (probe.c) */
        __atomic_store_n(&m->a, a, __ATOMIC_RELEASE);
    }
    if ((a->used + 1) * 2 > a->mask + 1) {
        struct mpidbg_harr *b = harr_new(64 - a->shift + 1);
        if (b) {
            for (uint64_t i = 0; i <= a->mask; i++)
                if (a->s[i].key)
                    harr_insert(b, a->s[i].key, a->s[i].val);
            __atomic_store_n(&m->a, b, __ATOMIC_RELEASE);
            a = b;
        } else if (a->used + 1 > a->mask) {
            return; /* full (a probe needs one empty slot), no memory to grow: as above */
        }
    }
    harr_insert(a, key, val);
}

void mpidbg_hmap_each(struct mpidbg_hmap *m, void (*fn)(void *val, void *arg), void *arg)
{
    struct mpidbg_harr *a = __atomic_load_n(&m->a, __ATOMIC_ACQUIRE);
    if (!a)
        return;
    for (uint64_t i = 0; i <= a->mask; i++)
        if (a->s[i].key)
            fn(a->s[i].val, arg);
}

/* ---- predefined datatypes ---- */

/* The predefined datatypes with their datatype.Basic numbers
 * (datatype/basic.go); aliases (MPI_LONG_LONG_INT, MPI_C_COMPLEX) share a
 * handle and appear once. The Fortran types come after the C ones, as
 * every mpi.h names them for C programs too (MPI-4.1 §19.3.6); the
 * optional ones (Annex A.1.1) only where this mpi.h names them: Open MPI
 * 4 leaves out those its Fortran compiler lacks, MPICH 4 has neither
 * MPI_REAL2 nor MPI_COMPLEX4 and names MPI_INTEGER16 MPI_DATATYPE_NULL.
 * mpidbg_registry_at_init enters only the types the library has at the
 * model's size. */
static const struct {
    MPI_Datatype t;
    int basic;
} predefs[] = {
    {MPI_CHAR, 1}, {MPI_SIGNED_CHAR, 2}, {MPI_UNSIGNED_CHAR, 3}, {MPI_BYTE, 4}, {MPI_WCHAR, 5},
    {MPI_SHORT, 6}, {MPI_UNSIGNED_SHORT, 7}, {MPI_INT, 8}, {MPI_UNSIGNED, 9}, {MPI_LONG, 10},
    {MPI_UNSIGNED_LONG, 11}, {MPI_LONG_LONG, 12}, {MPI_UNSIGNED_LONG_LONG, 13}, {MPI_FLOAT, 14},
    {MPI_DOUBLE, 15}, {MPI_LONG_DOUBLE, 16}, {MPI_INT8_T, 17}, {MPI_INT16_T, 18}, {MPI_INT32_T, 19},
    {MPI_INT64_T, 20}, {MPI_UINT8_T, 21}, {MPI_UINT16_T, 22}, {MPI_UINT32_T, 23}, {MPI_UINT64_T, 24},
    {MPI_C_BOOL, 25}, {MPI_C_FLOAT_COMPLEX, 26}, {MPI_C_DOUBLE_COMPLEX, 27},
    {MPI_C_LONG_DOUBLE_COMPLEX, 28}, {MPI_AINT, 29}, {MPI_OFFSET, 30}, {MPI_COUNT, 31},
    {MPI_PACKED, 32},
#ifndef OPEN_MPI /* removed in MPI-3.0; Open MPI 4 no longer defines them */
    {MPI_LB, 33}, {MPI_UB, 34},
#endif
    {MPI_FLOAT_INT, 35}, {MPI_DOUBLE_INT, 36},
    {MPI_LONG_INT, 37}, {MPI_2INT, 38}, {MPI_SHORT_INT, 39}, {MPI_LONG_DOUBLE_INT, 40},
    {MPI_INTEGER, 41}, {MPI_REAL, 42}, {MPI_DOUBLE_PRECISION, 43}, {MPI_COMPLEX, 44},
    {MPI_DOUBLE_COMPLEX, 45}, {MPI_LOGICAL, 46}, {MPI_CHARACTER, 47},
#ifdef MPI_INTEGER1
    {MPI_INTEGER1, 48},
#endif
#ifdef MPI_INTEGER2
    {MPI_INTEGER2, 49},
#endif
#ifdef MPI_INTEGER4
    {MPI_INTEGER4, 50},
#endif
#ifdef MPI_INTEGER8
    {MPI_INTEGER8, 51},
#endif
#ifdef MPI_INTEGER16
    {MPI_INTEGER16, 52},
#endif
#ifdef MPI_REAL2
    {MPI_REAL2, 53},
#endif
#ifdef MPI_REAL4
    {MPI_REAL4, 54},
#endif
#ifdef MPI_REAL8
    {MPI_REAL8, 55},
#endif
#ifdef MPI_REAL16
    {MPI_REAL16, 56},
#endif
#ifdef MPI_COMPLEX4
    {MPI_COMPLEX4, 57},
#endif
#ifdef MPI_COMPLEX8
    {MPI_COMPLEX8, 58},
#endif
#ifdef MPI_COMPLEX16
    {MPI_COMPLEX16, 59},
#endif
#ifdef MPI_COMPLEX32
    {MPI_COMPLEX32, 60},
#endif
    {MPI_2INTEGER, 61}, {MPI_2REAL, 62}, {MPI_2DOUBLE_PRECISION, 63},
};
#define NPREDEFS (sizeof predefs / sizeof predefs[0])

/* predef_usable says whether the library has predefined type i at the
 * size the model gives it: not MPI_DATATYPE_NULL, accepted by
 * MPI_Type_size, and as large as datatype/basic.go says. A library built
 * with other Fortran kinds (gfortran -fdefault-integer-8, say), or one
 * without a type its mpi.h names, keeps the type unregistered: unknown to
 * the checks, which skip it, rather than modelled wrongly. Errors return
 * for the one call (a fatal handler would end the program over a type it
 * may never use), and the program's handlers are put back. */
static void predef_usable(int usable[NPREDEFS])
{
    MPI_Errhandler ew = MPI_ERRHANDLER_NULL, es = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &ew);
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &es);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (size_t i = 0; i < NPREDEFS; i++) {
        int size = -1;
        usable[i] = predefs[i].t != MPI_DATATYPE_NULL && PMPI_Type_size(predefs[i].t, &size) == MPI_SUCCESS &&
                    size == mpidbg_go_basic_size(predefs[i].basic);
    }
    if (ew != MPI_ERRHANDLER_NULL) {
        PMPI_Comm_set_errhandler(MPI_COMM_WORLD, ew);
        PMPI_Errhandler_free(&ew);
    }
    if (es != MPI_ERRHANDLER_NULL) {
        PMPI_Comm_set_errhandler(MPI_COMM_SELF, es);
        PMPI_Errhandler_free(&es);
    }
}

/* mpidbg_predef_add records a predefined datatype; under the writer lock. */
void mpidbg_predef_add(uint64_t handle, int basic, int32_t fhandle)
{
    struct mpidbg_table *t = &mpidbg_registry.predefined;
    for (uint32_t i = 0; i < t->count; i++) {
        uint64_t h;
        int32_t b;
        mpidbg_predef_at((int)i, &h, &b);
        if (h == handle)
            return;
    }
    struct mpidbg_predef *p = mpidbg_table_add(t, NULL);
    if (!p)
        return;
    p->handle = handle;
    p->basic = basic;
    p->fhandle = fhandle;
    mpidbg_table_publish(t);
    mpidbg_model_changed();
}

int mpidbg_predef_count(void)
{
    return (int)__atomic_load_n(&mpidbg_registry.predefined.count, __ATOMIC_ACQUIRE);
}

void mpidbg_predef_at(int i, uint64_t *handle, int32_t *basic)
{
    struct mpidbg_table *t = &mpidbg_registry.predefined;
    uint64_t base = 0;
    int c = 0;
    while ((uint64_t)i >= base + ((uint64_t)t->first_chunk << c)) {
        base += (uint64_t)t->first_chunk << c;
        c++;
    }
    struct mpidbg_predef *p = (struct mpidbg_predef *)(uintptr_t)t->chunks[c] + (i - base);
    *handle = p->handle;
    *basic = p->basic;
}

void mpidbg_model_changed(void)
{
    __atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE);
}

/* Types renamed after their model may have been built: a ring the Go
 * side reads to forget those models (model.go); it starts over when it
 * falls more than half the ring behind. */
static uint64_t renamed[MPIDBG_RENAMED];
static uint64_t renamed_seq;

void mpidbg_type_renamed(uint64_t h) /* under the lock */
{
    __atomic_store_n(&renamed[renamed_seq % MPIDBG_RENAMED], h, __ATOMIC_RELAXED);
    __atomic_store_n(&renamed_seq, renamed_seq + 1, __ATOMIC_RELEASE);
}

uint64_t mpidbg_renamed_seq(void)
{
    return __atomic_load_n(&renamed_seq, __ATOMIC_ACQUIRE);
}

uint64_t mpidbg_renamed_at(uint64_t seq)
{
    return __atomic_load_n(&renamed[seq % MPIDBG_RENAMED], __ATOMIC_RELAXED);
}

uint64_t mpidbg_model_epoch(void)
{
    return __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
}

int mpidbg_read_mem(void *dst, uint64_t addr, uint64_t n)
{
    if (addr == 0 && n > 0)
        return -1;
    memcpy(dst, (const void *)(uintptr_t)addr, n);
    return 0;
}

/* ---- findings ring ---- */

static void copy_field(char *dst, size_t cap, const char *src)
{
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

struct mpidbg_finding *mpidbg_ring_put(uint64_t site, uint64_t related_site, uint32_t severity,
                                       const char *id, const char *category, const char *call,
                                       const char *path, const char *message)
{
    mpidbg_wlock();
    uint64_t seq = mpidbg_registry.findings_total + 1;
    struct mpidbg_finding *f = &ring[(seq - 1) % FINDINGS_CAP];
    memset(f, 0, sizeof *f);
    f->site = site;
    f->related_site = related_site;
    f->rank = mpidbg_registry.world_rank;
    f->severity = severity;
    copy_field(f->id, sizeof f->id, id);
    copy_field(f->category, sizeof f->category, category);
    copy_field(f->call, sizeof f->call, call);
    copy_field(f->path, sizeof f->path, path);
    copy_field(f->message, sizeof f->message, message);
    f->seq = seq;
    __atomic_store_n(&mpidbg_registry.findings_total, seq, __ATOMIC_RELEASE);
    mpidbg_wunlock();
    return f;
}

/* ---- life cycle ---- */

__attribute__((constructor)) static void registry_boot(void)
{
    struct mpidbg_registry *r = &mpidbg_registry;
    memcpy(r->magic, MPIDBG_REGISTRY_MAGIC, sizeof r->magic);
    r->version = MPIDBG_REGISTRY_VERSION;
    r->header_size = sizeof *r;
    r->mpi = MPIDBG_MPI_ID;
    r->handle_size = sizeof(MPI_Datatype);
    r->world_rank = -1;
    r->pid = (int32_t)getpid();
    r->findings_cap = FINDINGS_CAP;
    r->findings = (uint64_t)(uintptr_t)ring;
    table_init(&r->predefined, sizeof(struct mpidbg_predef), 64);
    table_init(&r->types, sizeof(struct mpidbg_type), 64);
    table_init(&r->requests, sizeof(struct mpidbg_request), 256);
    table_init(&r->comms, sizeof(struct mpidbg_comm), 16);
    table_init(&r->groups, sizeof(struct mpidbg_group), 16);
    table_init(&r->ops, sizeof(struct mpidbg_op), 16);
    table_init(&r->wins, sizeof(struct mpidbg_win), 8);
    table_init(&r->pysites, sizeof(struct mpidbg_pysite), 64);
}

/* mpidbg_registry_at_init fills what MPI_Init makes known. */
void mpidbg_registry_at_init(void)
{
    int rank = -1, size = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    int usable[NPREDEFS];
    predef_usable(usable);
    mpidbg_wlock();
    mpidbg_registry.world_rank = rank;
    mpidbg_registry.world_size = size;
    mpidbg_registry.pid = (int32_t)getpid();
    for (size_t i = 0; i < NPREDEFS; i++)
        if (usable[i])
            mpidbg_predef_add(MPIDBG_H(predefs[i].t), predefs[i].basic, PMPI_Type_c2f(predefs[i].t));
    mpidbg_registry.flags |= MPIDBG_INITIALIZED;
    mpidbg_wunlock();
    for (size_t i = 0; i < NPREDEFS; i++) {
        if (!usable[i])
            continue;
        struct mpidbg_tobj *o = mpidbg_type_predefined(predefs[i].t, predefs[i].basic);
#ifdef OPEN_MPI
        if (o && o->size == o->extent && o->lb == 0 && o->true_lb == 0)
            mpidbg_ompi_type_add(o->handle, o->size);
#else
        (void)o;
#endif
    }
}

void mpidbg_registry_at_finalize(void)
{
    mpidbg_wlock();
    mpidbg_registry.flags |= MPIDBG_FINALIZED;
    mpidbg_wunlock();
}

int mpidbg_world_size_get(void)
{
    return mpidbg_registry.world_size;
}
