/*
 * The node segment (xr_node.h): made at MPI_Init by the ranks of each
 * host, from a POSIX shared-memory object under a random name that the
 * host's first rank chose, made readable by its owner only by whichever
 * rank of the host comes first, and removed by that rank as soon as
 * every rank of the host has mapped it: nothing of it outlives the job,
 * and no other job can open it.
 *
 * When anything fails on a host (no shared-memory file system, no room,
 * a rank that cannot map it), every rank of that host goes without it:
 * the ranks agree on it before anyone uses it, so a sender and a
 * receiver on one host always agree on whether the rings exist.
 */
#define _GNU_SOURCE
#include <errno.h>
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
static int32_t world_of[NODE_MAX]; /* node index -> world rank */
static uint32_t arena_used;
static int seg_fd = -1; /* the object, open for mpidbg_node_reserve */
static ino_t seg_ino;
static dev_t seg_dev;

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
    return mpidbg_node_on && idx >= 0 && idx < mpidbg_node_n ? world_of[idx] : -1;
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

/* slots per ring: the rings of a host share 16 MiB of address space, so
 * a pair of few ranks may have tens of thousands of messages in flight
 * before it falls back to shadow messages (xr_p2p.c), and 64 ranks have
 * 64 each. Only the first MPIDBG_NODE_RESERVE slots of each ring are reserved when
 * the segment is made; the sender reserves the rest as it reaches them
 * (mpidbg_node_reserve), so a host whose pairs keep a few messages in
 * flight never holds more than that. A shadow message costs more than
 * its own send: MPICH over UCX posts every receive on UCX's wildcard
 * queue, so a message no receive is posted for, as a shadow message
 * never is, is compared with every receive pending on the rank. */
static uint32_t slots_for(int n)
{
    uint32_t s = 65536;
    while (s > 64 && (uint64_t)s * (uint64_t)n * (uint64_t)n > ((16u << 20) / sizeof(struct mpidbg_rslot)))
        s >>= 1;
    return s;
}

/* the bytes of the segment reserved at its creation: the first slots of
 * every ring, the arenas and the collective areas */
/* reserve gives memory to len bytes of the object from off; tmpfs's
 * fallocate stops at a pending signal (a profiler's timer), which is no
 * reason to go without the rings. */
static int reserve(int fd, size_t off, size_t len)
{
    int e;
    while ((e = posix_fallocate(fd, (off_t)off, (off_t)len)) == EINTR)
        ;
    return e == 0;
}

static int reserve_at_creation(int fd)
{
    size_t first = sizeof(struct mpidbg_ring) + (size_t)(mpidbg_node_nslot < MPIDBG_NODE_RESERVE ? mpidbg_node_nslot : MPIDBG_NODE_RESERVE) * sizeof(struct mpidbg_rslot);
    for (int i = 0; i < mpidbg_node_n * mpidbg_node_n; i++)
        if (!reserve(fd, (size_t)i * ring_len, first))
            return 0;
    return reserve(fd, rings_len(), seg_len - rings_len());
}

/* A ring that cannot grow (no room left in the shared-memory file
 * system) falls back to shadow messages rather than touch a page that
 * has none, which the kernel would answer with SIGBUS. The object's
 * descriptor stays open for it; a program that closed it, or put another
 * file under its number, gets 0. */
uint32_t mpidbg_node_reserve(int d, uint32_t from)
{
    struct stat st;
    uint32_t n = mpidbg_node_nslot - from < MPIDBG_NODE_RESERVE ? mpidbg_node_nslot - from : MPIDBG_NODE_RESERVE;
    size_t off = ((size_t)mpidbg_node_me * (size_t)mpidbg_node_n + (size_t)d) * ring_len + sizeof(struct mpidbg_ring) +
                 (size_t)from * sizeof(struct mpidbg_rslot);
    if (seg_fd < 0 || fstat(seg_fd, &st) != 0 || st.st_ino != seg_ino || st.st_dev != seg_dev ||
        !reserve(seg_fd, off, (size_t)n * sizeof(struct mpidbg_rslot)))
        return 0;
    return from + n;
}

/* host_id names this host: a hash of its host name and boot id, the two
 * things that decide whether ranks can open one POSIX shared-memory
 * object (a container of its own names itself apart; so does a
 * network-namespace host of the multi-host tests). Not
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) nor any split: MPICH's cost
 * a scheduling round per rank and more at every job's start when the
 * ranks outnumber the cores (docs/DESIGN-SCALE.md). Two hosts whose
 * hashes collide make one group whose ranks create one object on each
 * (containers with the host's name and boot id but their own /dev/shm
 * collide for certain): the agreement below sees two creators and turns
 * the segment off for that group, nothing worse. */
static uint64_t host_id(void)
{
    char buf[320] = {0};
    gethostname(buf, 255);
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t r = read(fd, buf + 256, 63);
        (void)r;
        close(fd);
    }
    uint64_t h = MPIDBG_FNV64_BASIS; /* FNV-1a over the whole buffer */
    for (size_t i = 0; i < sizeof buf; i++)
        h = mpidbg_fnv64(h, (unsigned char)buf[i]);
    return h;
}

/* open_segment opens, creating it if it is the first, the host's object
 * under its secret name, and maps it. Every rank of the host may be the
 * first: the object is created with mode 0600 and taken only if this
 * user owns it and nobody else may open it; sizing is idempotent, so the
 * order in which the ranks arrive does not matter. */
static void *open_segment(const char *name, int *made_it)
{
    int made = 1, fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) {
        made = 0;
        fd = shm_open(name, O_RDWR, 0600);
    }
    if (fd < 0)
        return MAP_FAILED;
    struct stat st;
    void *p = MAP_FAILED;
    /* the creator reserves what every rank needs at once: a shared-memory
     * file system too small for it fails here, and turns the segment off
     * for the host in the agreement, not with SIGBUS at a first touch in
     * the middle of the program */
    if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 077) == 0 &&
        ftruncate(fd, (off_t)seg_len) == 0 && (!made || reserve_at_creation(fd)))
        p = mmap(NULL, seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
    } else {
        seg_fd = fd;
        seg_ino = st.st_ino;
        seg_dev = st.st_dev;
    }
    *made_it = made;
    return p;
}

/* mpidbg_node_init finds the ranks of this host and maps their segment
 * with two collectives on MPI_COMM_WORLD, both waited for without
 * holding the processor (xr_wait.c): an allgather of every rank's host
 * and random number, from which each rank computes its host's ranks in
 * world order and the object's name; and, once every rank has mapped it
 * or failed to, an allgather of one byte from which each rank computes
 * its host's agreement. Every rank that took part in the first takes
 * part in the second, whatever happened in between. The rank that
 * created the object removes its name then: nothing of it outlives the
 * job. hello is world_size entries and says world_size bytes, allocated
 * with the rest of the cross-rank state (mpidbg_xr_init). */
void mpidbg_node_init(int world_size, int mt, struct mpidbg_node_hello *all, uint8_t *says)
{
    struct mpidbg_node_hello mine = {host_id(), 0};
    if (getrandom(&mine.secret, sizeof mine.secret, 0) != (ssize_t)sizeof mine.secret)
        mine.secret = 0;
    MPI_Request r;
    if (PMPI_Iallgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, MPI_COMM_WORLD, &r) != MPI_SUCCESS)
        return;
    int ok = mpidbg_xr_wait(&r) == MPI_SUCCESS;
    /* the host's ranks, in world order: the same list on each of them */
    int n = 0, me = -1, first = -1;
    for (int i = 0; ok && i < world_size; i++) {
        if (all[i].host != mine.host)
            continue;
        if (first < 0)
            first = i;
        if (i == mpidbg_world_rank)
            me = n;
        if (n < NODE_MAX)
            world_of[n] = i;
        n++;
    }
    /* asked off on one rank is off for the host: the ranks agree below */
    ok = ok && me >= 0 && n <= NODE_MAX && !getenv("MPIDBG_NO_NODE_SEGMENT") && all[first].secret;
    index_of = ok ? malloc(sizeof *index_of * (size_t)world_size) : NULL;
    ok = ok && index_of;
    if (ok) {
        mpidbg_node_n = n;
        mpidbg_node_me = me;
        mpidbg_node_nslot = slots_for(n);
        ring_len = sizeof(struct mpidbg_ring) + (size_t)mpidbg_node_nslot * sizeof(struct mpidbg_rslot);
        seg_len = rings_len() + (size_t)n * ARENA + (size_t)n * MPIDBG_NODE_COLL;
    }
    char name[64] = {0};
    int made = 0;
    void *p = MAP_FAILED;
    if (ok) {
        snprintf(name, sizeof name, "/mpidbg-%d-%016llx", first, (unsigned long long)all[first].secret);
        p = open_segment(name, &made);
    }
    ok = ok && p != MAP_FAILED && mpidbg_ring_init(n);
    /* every rank of the host has it, or none uses it; the rings only
     * when no rank of the host runs threads that call MPI at once; and
     * one object: a host whose ranks made two has two /dev/shm */
    uint8_t say = (uint8_t)((ok ? 1 : 0) | (mt ? 0 : 2) | (made ? 4 : 0));
    int agreed = PMPI_Iallgather(&say, 1, MPI_BYTE, says, 1, MPI_BYTE, MPI_COMM_WORLD, &r) == MPI_SUCCESS &&
                 mpidbg_xr_wait(&r) == MPI_SUCCESS;
    if (made)
        shm_unlink(name); /* every rank of the host has opened it by now (or failed to) */
    uint8_t host_says = 3;
    int makers = 0;
    for (int i = 0; agreed && ok && i < world_size; i++) {
        if (all[i].host == mine.host) {
            host_says &= says[i];
            makers += (says[i] & 4) != 0;
        }
    }
    if (!agreed || !ok || !(host_says & 1) || makers != 1) {
        if (p != MAP_FAILED) {
            munmap(p, seg_len);
            close(seg_fd);
            seg_fd = -1;
        }
        free(index_of);
        index_of = NULL;
        return;
    }
    seg = p;
    for (int i = 0; i < world_size; i++)
        index_of[i] = -1;
    for (int i = 0; i < n; i++)
        index_of[world_of[i]] = i;
    mpidbg_node_on = 1;
    mpidbg_node_p2p = (host_says & 2) != 0;
}
