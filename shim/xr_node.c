/*
 * The node segment (xr_node.h): made at MPI_Init by the ranks of each
 * host, from a POSIX shared-memory object that the host's first rank
 * creates under a random name, exclusively and readable by its owner
 * only, and removes as soon as every rank of the host has mapped it:
 * nothing of it outlives the job, and no other job can open it.
 *
 * When anything fails on a host (no shared-memory file system, no room,
 * a rank that cannot map it), every rank of that host goes without it:
 * the ranks agree on it before anyone uses it, so a sender and a
 * receiver on one host always agree on whether the rings exist.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"
#include "xr_node.h"

int mpidbg_node_on, mpidbg_node_p2p, mpidbg_node_n, mpidbg_node_me;
uint32_t mpidbg_node_nslot;

#define NODE_MAX 64            /* ranks on one host; more: no segment (its size grows with the square) */
#define ARENA (128u << 10)     /* bytes of datatype descriptions per rank */

static uint8_t *seg;
static size_t seg_len, ring_len;
static int32_t *index_of; /* world rank -> node index, -1 elsewhere */
static int32_t *world_of; /* node index -> world rank */
static uint32_t arena_used;

static size_t rings_len(void)
{
    return (size_t)mpidbg_node_n * (size_t)mpidbg_node_n * ring_len;
}

struct mpidbg_ring *mpidbg_node_ring(int s, int d)
{
    return (struct mpidbg_ring *)(seg + ((size_t)s * (size_t)mpidbg_node_n + (size_t)d) * ring_len);
}

static uint8_t *arena(int idx)
{
    return seg + rings_len() + (size_t)idx * ARENA;
}

uint8_t *mpidbg_node_coll(int idx)
{
    return seg + rings_len() + (size_t)mpidbg_node_n * ARENA + (size_t)idx * MPIDBG_NODE_COLL;
}

int mpidbg_node_index(int world)
{
    if (!mpidbg_node_on || world < 0 || world >= mpidbg_world_size())
        return -1;
    return index_of[world];
}

int mpidbg_node_world(int idx)
{
    return idx >= 0 && idx < mpidbg_node_n ? world_of[idx] : -1;
}

uint32_t mpidbg_node_put(const void *p, uint32_t len)
{
    uint32_t at = (arena_used + 7u) & ~7u;
    if (!mpidbg_node_on || len > ARENA || at > ARENA - len)
        return 0;
    memcpy(arena(mpidbg_node_me) + at, p, len);
    arena_used = at + len;
    return at + 1;
}

const uint8_t *mpidbg_node_at(int idx, uint32_t off, uint32_t len)
{
    if (!mpidbg_node_on || idx < 0 || idx >= mpidbg_node_n || !off || off - 1 > ARENA || len > ARENA - (off - 1))
        return NULL;
    return arena(idx) + off - 1;
}

/* slots per ring: enough for a window of a thousand messages between
 * two ranks when they are few, fewer when many share the host (a full
 * ring falls back to shadow messages, xr_p2p.c) */
static uint32_t slots_for(int n)
{
    uint32_t s = 1024;
    while (s > 64 && (uint64_t)s * (uint64_t)n > 4096)
        s >>= 1;
    return s;
}

/* host_colour names this host for MPI_Comm_split: a hash of its host
 * name and boot id, the two things that decide whether ranks can open
 * one POSIX shared-memory object (a container of its own names itself
 * apart; so does a network-namespace host of the multi-host tests). Not
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): MPICH's costs some 40 ms of
 * CPU per rank, three times a plain split, at every job's start
 * (docs/DESIGN-SCALE.md). Two hosts whose hashes collide make one group
 * in which the ranks of one host cannot open the other's object: the
 * agreement below then turns the segment off for that group, nothing
 * worse. */
static int host_colour(void)
{
    char buf[320] = {0};
    gethostname(buf, 255);
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t r = read(fd, buf + 256, 63);
        (void)r;
        close(fd);
    }
    uint64_t h = 14695981039346656037ull; /* FNV-1a over the whole buffer */
    for (size_t i = 0; i < sizeof buf; i++)
        h = (h ^ (unsigned char)buf[i]) * 1099511628211ull;
    return (int)((h ^ (h >> 32)) & 0x7fffffff); /* a colour is non-negative */
}

/* node_world_ranks fills world_of with the world rank of each of the
 * node communicator's n ranks (a local translation of groups, MPI-4.1
 * §6.3.1) */
static int node_world_ranks(MPI_Comm node, int n, int32_t *world_of)
{
    MPI_Group g, wg;
    if (PMPI_Comm_group(node, &g) != MPI_SUCCESS)
        return 0;
    int ok = 0;
    if (PMPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS) {
        int in[NODE_MAX], out[NODE_MAX];
        for (int i = 0; i < n; i++)
            in[i] = i;
        ok = PMPI_Group_translate_ranks(g, n, in, wg, out) == MPI_SUCCESS;
        for (int i = 0; ok && i < n; i++) {
            if (out[i] == MPI_UNDEFINED)
                ok = 0;
            else
                world_of[i] = out[i];
        }
        PMPI_Group_free(&wg);
    }
    PMPI_Group_free(&g);
    return ok;
}

void mpidbg_node_init(int world_size, int mt)
{
    MPI_Comm node = MPI_COMM_NULL;
    if (PMPI_Comm_split(MPI_COMM_WORLD, host_colour(), mpidbg_world_rank, &node) != MPI_SUCCESS)
        return;
    PMPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    int n = 0, me = 0;
    PMPI_Comm_size(node, &n);
    PMPI_Comm_rank(node, &me);
    /* asked off on one rank is off for the host: the ranks agree below */
    int ok = n > 0 && n <= NODE_MAX && !getenv("MPIDBG_NO_NODE_SEGMENT");
    world_of = calloc((size_t)(n > 0 ? n : 1), sizeof *world_of);
    index_of = malloc(sizeof *index_of * (size_t)(world_size > 0 ? world_size : 1));
    ok = ok && world_of && index_of;
    /* the host's world ranks from the groups, without a message: every
     * collective here costs a scheduling round per rank when the ranks
     * outnumber the cores (docs/DESIGN-SCALE.md) */
    if (ok && !node_world_ranks(node, n, world_of))
        ok = 0;
    mpidbg_node_n = n;
    mpidbg_node_me = me;
    mpidbg_node_nslot = slots_for(n);
    ring_len = sizeof(struct mpidbg_ring) + (size_t)mpidbg_node_nslot * sizeof(struct mpidbg_rslot);
    seg_len = rings_len() + (size_t)n * ARENA + (size_t)n * MPIDBG_NODE_COLL;

    /* the name: random, made by the host's first rank and sent to the
     * others; the object is created exclusively, mode 0600 */
    char name[64] = {0};
    int fd = -1;
    if (me == 0) {
        unsigned char r[12];
        if (ok && getrandom(r, sizeof r, 0) == (ssize_t)sizeof r) {
            int k = snprintf(name, sizeof name, "/mpidbg-%d-", (int)getpid());
            for (size_t i = 0; i < sizeof r && k + 2 < (int)sizeof name; i++, k += 2)
                snprintf(name + k, sizeof name - (size_t)k, "%02x", r[i]);
            fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
            /* the pages reserved now: a shared-memory file system too
             * small for them fails here, not with SIGBUS at a first
             * touch in the middle of the program */
            if (fd < 0 || ftruncate(fd, (off_t)seg_len) != 0 || posix_fallocate(fd, 0, (off_t)seg_len) != 0) {
                if (fd >= 0) {
                    close(fd);
                    shm_unlink(name);
                }
                fd = -1;
                name[0] = 0;
            }
        } else {
            name[0] = 0;
        }
    }
    if (PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, node) != MPI_SUCCESS)
        name[0] = 0;
    name[sizeof name - 1] = 0;
    if (me != 0 && name[0])
        fd = shm_open(name, O_RDWR, 0600);
    void *p = MAP_FAILED;
    if (ok && fd >= 0)
        p = mmap(NULL, seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    ok = ok && p != MAP_FAILED && mpidbg_ring_init(n);
    /* every rank of the host has it, or none uses it; the rings only
     * when no rank of the host runs threads that call MPI at once */
    /* one allreduce for both: the minimum of "no threads" is 0 when any
     * rank has them */
    int in[2] = {ok ? 1 : 0, mt ? 0 : 1}, out[2] = {0, 0};
    int agreed = PMPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, node) == MPI_SUCCESS;
    if (me == 0 && name[0])
        shm_unlink(name); /* every rank has opened it by now (or failed to) */
    PMPI_Comm_free(&node);
    if (!agreed || !out[0]) {
        if (p != MAP_FAILED)
            munmap(p, seg_len);
        return;
    }
    seg = p;
    for (int i = 0; i < world_size; i++)
        index_of[i] = -1;
    for (int i = 0; i < n; i++)
        if (world_of[i] >= 0 && world_of[i] < world_size)
            index_of[world_of[i]] = i;
    mpidbg_node_on = 1;
    mpidbg_node_p2p = out[1];
}
