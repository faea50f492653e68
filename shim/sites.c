/*
 * Call sites as another rank can name them, for the findings one rank
 * reports about another's call (cross-rank type matching and message
 * races in xr_p2p.c, one-sided conflicts in rma_epoch.c and
 * rma_target.c). An address means nothing in another process; a module
 * (hash of its file name) and an offset do, when the ranks run the same
 * binaries. The launcher turns them back into file:line (xr.go). A
 * Python site is coded as its file name, function and line (python.c).
 */
#include <string.h>

#include <pthread.h>

#include "shim.h"

/* A direct-mapped cache: finding a site's module walks the loaded
 * modules (dladdr), too slow for every message. Written with a release
 * store of pc last, so that a reader that sees pc sees its fields. */
#define NSITE 512
static struct {
    uint64_t pc, off;
    uint32_t mod;
} sites[NSITE];

uint32_t mpidbg_fnv(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h ? h : 1;
}

void mpidbg_site_code(uint64_t pc, uint64_t *off, uint32_t *mod)
{
    unsigned i = (unsigned)(pc >> 2) % NSITE;
    if (__atomic_load_n(&sites[i].pc, __ATOMIC_ACQUIRE) == pc && pc) {
        *off = sites[i].off;
        *mod = sites[i].mod;
        return;
    }
    *off = pc;
    *mod = 0;
    char path[4096];
    if (MPIDBG_IS_PYSITE(pc))
        mpidbg_python_site_code(pc, off, mod); /* the script's file, function and line */
    else if (pc && mpidbg_site_info(pc, path, sizeof path, off) == 0) {
        const char *base = strrchr(path, '/');
        *mod = mpidbg_fnv(base ? base + 1 : path);
    }
    sites[i].pc = 0;
    sites[i].off = *off;
    sites[i].mod = *mod;
    __atomic_store_n(&sites[i].pc, pc, __ATOMIC_RELEASE);
}

/* The pairs of places reported lately, so that a loop reports a finding
 * once rather than every iteration. Callers make their keys distinct
 * (each mixes a constant of its own in). Locked under
 * MPI_THREAD_MULTIPLE only. */
#define NSEEN 256
static struct {
    uint64_t a, b;
} seen[NSEEN];
static unsigned nseen;
static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;

int mpidbg_seen_pair(uint64_t a, uint64_t b)
{
    int mt = mpidbg_mt, found = 0;
    if (mt)
        pthread_mutex_lock(&seen_mu);
    for (unsigned i = 0; i < nseen && i < NSEEN && !found; i++)
        if (seen[i].a == a && seen[i].b == b)
            found = 1;
    if (!found) {
        seen[nseen % NSEEN].a = a;
        seen[nseen % NSEEN].b = b;
        nseen++;
    }
    if (mt)
        pthread_mutex_unlock(&seen_mu);
    return found;
}
