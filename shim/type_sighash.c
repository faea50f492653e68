/*
 * The signature digests the collectives' agreement compares (xr_coll.c),
 * kept with each datatype. The Go model makes a digest; calling into Go
 * from a rank's thread on every collective costs more than the
 * collective on a small machine (the runtime's P is taken and handed
 * back, and its monitor wakes threads to retake it), so each type keeps
 * the last digests asked for, a few counts of it, and a collective on a
 * type and count seen before does not leave C.
 *
 * An entry is a seqlock: a writer makes seq odd, writes, and makes it
 * even again; a reader takes the entry only when seq was even and did
 * not change while it read. Writers that meet an odd seq leave the entry
 * alone (the digest is still right, only not kept). An entry also holds
 * the object's generation, read before the digest was asked for: a
 * handle freed and given to a new type while a thread was in Go (under
 * MPI_THREAD_MULTIPLE) bumps it, and the old type's digest, stored after
 * that, never matches. Four entries, chosen by the count.
 */
#include "shim.h"

#define NSIGHASH (sizeof(((struct mpidbg_tobj *)0)->sighash) / sizeof(struct mpidbg_sighash))

static struct mpidbg_sighash *entry(struct mpidbg_tobj *o, int64_t count)
{
    uint64_t c = (uint64_t)count;
    return &o->sighash[(c ^ (c >> 7)) % NSIGHASH];
}

static int get(struct mpidbg_sighash *e, uint32_t gen, int64_t count, uint64_t *hash)
{
    uint32_t s = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
    if (s == 0 || (s & 1))
        return 0;
    uint32_t g = __atomic_load_n(&e->gen, __ATOMIC_RELAXED);
    int64_t c = __atomic_load_n(&e->count, __ATOMIC_RELAXED);
    uint64_t h = __atomic_load_n(&e->hash, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != s || g != gen || c != count)
        return 0;
    *hash = h;
    return 1;
}

static void put(struct mpidbg_sighash *e, uint32_t gen, int64_t count, uint64_t hash)
{
    uint32_t s = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
    if ((s & 1) || !__atomic_compare_exchange_n(&e->seq, &s, s + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&e->gen, gen, __ATOMIC_RELAXED);
    __atomic_store_n(&e->count, count, __ATOMIC_RELAXED);
    __atomic_store_n(&e->hash, hash, __ATOMIC_RELAXED);
    __atomic_store_n(&e->seq, s + 2, __ATOMIC_RELEASE);
}

uint64_t mpidbg_type_sighash(MPI_Datatype t, int64_t count)
{
    struct mpidbg_tobj *o = mpidbg_hmap_get(&mpidbg_types, MPIDBG_H(t));
    uint32_t gen = o ? __atomic_load_n(&o->sig_gen, __ATOMIC_ACQUIRE) : 0;
    uint64_t h;
    if (o && get(entry(o, count), gen, count, &h))
        return h;
    h = mpidbg_go_sig_hash(MPIDBG_H(t), count);
    /* 0: the model does not know the type (yet): asked again next time */
    if (o && h)
        put(entry(o, count), gen, count, h);
    return h;
}

void mpidbg_type_sighash_forget(struct mpidbg_tobj *o)
{
    __atomic_add_fetch(&o->sig_gen, 1, __ATOMIC_RELEASE);
}
