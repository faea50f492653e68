/*
 * The shim's internal interface: what the generated wrappers
 * (wrappers_gen.c), the hand-written wrappers and the Go side call. Not
 * installed, not a contract: reg.h is the contract.
 *
 * Naming: everything here has external linkage because it spans several
 * C files of one shared library, so it is hidden (MPIDBG_HIDDEN) and
 * carries the mpidbg_ prefix; the exported symbols are the MPI_ wrappers,
 * mpidbg_registry, mpidbg_break, mpidbg_resume and the Go entry points
 * (mpidbg_go_*).
 */
#ifndef MPIDBG_SHIM_H
#define MPIDBG_SHIM_H

#include <mpi.h>
#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h> /* MPI-4's persistent collectives as MPIX_ (wrappers_gen.c) */
#endif
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "reg.h"
#include "calls_gen.h"
#include "engine.h"
#include "xr.h"
#include "xr_node.h"
#include "xr_coll_node.h"
#include "rma.h"
#include "track.h"
#include "tclock.h"

#define MPIDBG_HIDDEN __attribute__((visibility("hidden")))
#define MPIDBG_LIKELY(x) __builtin_expect(!!(x), 1)
#define MPIDBG_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* mpidbg_serves_mpi: whether the library at path serves MPI, not the
 * program (MPI itself, its runtime and transports; threads.c). */
int mpidbg_serves_mpi(const char *path) MPIDBG_HIDDEN;

/* mpidbg_next_symbol: the next definition of a function the shim wraps
 * (dlsym RTLD_NEXT), looked up once into *cache (threads.c). */
void *mpidbg_next_symbol(void **cache, const char *name) MPIDBG_HIDDEN;

/* ---- handle maps (reg.c) ----
 * An open-addressing map from handle to private object, read without a
 * lock (entries are never removed; the array is replaced, never freed,
 * when it grows) and written under the writer lock. Here, ahead of the
 * MPI library specifics: Open MPI's predefined datatypes are one. */
struct mpidbg_hslot {
    uint64_t key;
    void *val;
};
struct mpidbg_harr {
    uint64_t mask;
    uint64_t used;
    int shift;
    struct mpidbg_hslot s[];
};
struct mpidbg_hmap {
    struct mpidbg_harr *a;
};
MPIDBG_HIDDEN void *mpidbg_hmap_get(struct mpidbg_hmap *m, uint64_t key);
MPIDBG_HIDDEN void mpidbg_hmap_put(struct mpidbg_hmap *m, uint64_t key, void *val);
MPIDBG_HIDDEN void mpidbg_hmap_each(struct mpidbg_hmap *m, void (*fn)(void *val, void *arg), void *arg);

/* ---- predefined operations ----
 * The predefined reduction operations (MPI-4.1 §6.9.2) are numbered
 * 1..14 in this order for every MPI (0: not predefined), so that ranks
 * compare operations by number, never by handle value (an Open MPI
 * handle is an address, which differs between processes). builtin.c
 * builds its table of handles and names from this list, and checks for
 * MPICH that MPIDBG_BUILTIN_OP_INDEX gives each its number. */
#define MPIDBG_BUILTIN_OPS(X) \
    X(MAX) X(MIN) X(SUM) X(PROD) X(LAND) X(BAND) X(LOR) X(BOR) X(LXOR) X(BXOR) X(MINLOC) X(MAXLOC) X(REPLACE) X(NO_OP)
#define MPIDBG_OP_ENUM(n) MPIDBG_OP_##n,
enum mpidbg_opi { MPIDBG_OP_NONE, MPIDBG_BUILTIN_OPS(MPIDBG_OP_ENUM) MPIDBG_NOPS };
#undef MPIDBG_OP_ENUM

/* MPIDBG_MINT_SLOTS is how many minted request handles there can be at
 * once (requests.c, MPIDBG_MINT below). */
#define MPIDBG_MINT_SLOTS (1u << 19)

/* ---- MPI library specifics ----
 * How handles are encoded differs between MPI libraries; the rest of the
 * shim uses only the names below (mpi_mpich.h and mpi_openmpi.h say what
 * each means for its library):
 *   MPIDBG_MPI_ID                 enum mpidbg_mpi value of the registry
 *   MPIDBG_H(h)                   a handle as the registry's uint64_t
 *   MPIDBG_IS_BUILTIN_TYPE(h)     a predefined contiguous type (size = extent, lb 0)
 *   MPIDBG_BUILTIN_TYPE_SIZE_OR(h) its size, -1 for any other handle (one
 *                                 lookup: MPICH's MPI_LB and MPI_UB have size 0)
 *   MPIDBG_IS_BUILTIN_OP(h)       a predefined reduction operation
 *   MPIDBG_BUILTIN_OP_INDEX(h)    its enum mpidbg_opi number, 0 for any other handle
 *   MPIDBG_IS_BUILTIN_REQ(h)      a request handle MPI shares between operations
 *   MPIDBG_MINTABLE(r)            such a handle can be minted (requests.c)
 *   MPIDBG_MINT(slot, r)          the minted handle for slot; MPIDBG_MINT_SLOT(h) back
 *   MPIDBG_IS_MINTED_REQ(h)       a handle the shim minted
 *   mpidbg_req_real(r)            what MPI gets for it
 * A file includes mpi.h through here, which tells the two apart by the
 * macro each mpi.h defines (MPICH, OPEN_MPI). */
#if defined(OPEN_MPI)
#include "mpi_openmpi.h"
#elif defined(MPICH)
#include "mpi_mpich.h"
#else
#error "mpidbg's shim is built for MPICH or Open MPI: this mpi.h is neither"
#endif

/* MPIDBG_REFUSING says that a check found what the MPI library would
 * die of (a handle it follows, MPIDBG_DEREFS_HANDLES) or hang on for
 * ever (finding.c's refusal): the wrapper then returns
 * mpidbg_refused(cx) (which leaves cx) instead of calling MPI. A call
 * that goes on into MPI after findings passes mpidbg_going_on, which
 * tells mpidbg when MPI's error handler may end the rank there
 * (fatal.c). */
#define MPIDBG_REFUSING(cx) MPIDBG_UNLIKELY(((cx)->refuse | (cx)->nfound) != 0 && !mpidbg_going_on(cx))
struct mpidbg_cx;
int mpidbg_refused(struct mpidbg_cx *cx) MPIDBG_HIDDEN;
int mpidbg_going_on(struct mpidbg_cx *cx) MPIDBG_HIDDEN;
/* mpidbg_followable says whether the MPI may be given handle h of a kind
 * (enum mpidbg_hkind, engine.h) without dying of it: always for MPICH;
 * for Open MPI when h points at an object of the kind's class (probe.c). */
int mpidbg_followable(int kind, uint64_t h) MPIDBG_HIDDEN;

/* mpidbg_builtin_op_name names a predefined operation by its enum
 * mpidbg_opi number, NULL for 0. builtin.c. */
const char *mpidbg_builtin_op_name(int index) MPIDBG_HIDDEN;

/* ---- the finding catalogue, as C knows it ----
 * MPIDBG_FINDINGS and enum mpidbg_cat come from findings_gen.h (through
 * engine.h), generated from package checks: a finding is defined there. */
#define MPIDBG_FID_ENUM(n, s, c) MPIDBG_F_##n,
enum mpidbg_fid { MPIDBG_FINDINGS(MPIDBG_FID_ENUM) MPIDBG_NFID };
#undef MPIDBG_FID_ENUM

/* ---- per-thread and global state ---- */
extern __thread int mpidbg_thread_seen __attribute__((tls_model("initial-exec"), visibility("hidden")));
void mpidbg_thread_first(void) __attribute__((visibility("hidden"))); /* threads.c */
void mpidbg_blocked_thread(void) __attribute__((visibility("hidden")));
/* mpidbg_timer_pending: a real-time timer the program armed may still
 * expire after now (CLOCK_MONOTONIC ns), and its handler or thread wake
 * a thread that waits for another (timers.c) */
int mpidbg_timer_pending(int64_t now) __attribute__((visibility("hidden")));
extern __thread int mpidbg_depth __attribute__((tls_model("initial-exec"), visibility("hidden")));
extern int mpidbg_active MPIDBG_HIDDEN;          /* between MPI_Init and MPI_Finalize */
extern uintptr_t mpidbg_mpi_lo MPIDBG_HIDDEN;    /* the MPI library's text, for calls MPI makes */
extern uintptr_t mpidbg_mpi_len MPIDBG_HIDDEN;
extern int mpidbg_tag_ub MPIDBG_HIDDEN;
extern unsigned mpidbg_disabled MPIDBG_HIDDEN;   /* bit per enum mpidbg_cat, from MPIDBG_CHECKS (mpidbg_checks_init) */
extern int mpidbg_world_rank MPIDBG_HIDDEN;
void mpidbg_spawn_init(void) MPIDBG_HIDDEN;          /* at MPI_Init: mpidbg_spawned (spawn.c) */
extern uint64_t mpidbg_xr_clock MPIDBG_HIDDEN;
extern int mpidbg_mt MPIDBG_HIDDEN;              /* MPI_THREAD_MULTIPLE: writers lock */
extern struct mpidbg_cobj *mpidbg_world MPIDBG_HIDDEN;

/* A call goes straight to PMPI when it is made inside a wrapper (by MPI
 * itself, ROMIO, a callback), from inside the MPI library, or outside
 * MPI_Init..MPI_Finalize. */
static inline int mpidbg_bypass(void *ra)
{
    return mpidbg_depth || !mpidbg_active || (uintptr_t)ra - mpidbg_mpi_lo < mpidbg_mpi_len;
}

/* mpidbg_mix64 is splitmix64's finaliser: every bit of x moves every bit
 * of the result (the nasty mode's seeds, the lost-message check's
 * weights, intercommunicators' ids) */
static inline uint64_t mpidbg_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* mpidbg_fnv64 folds v into h, FNV-1a's step, for keys made of a
 * sequence of values (a poll's requests, a v-collective's counts, an
 * intercommunicator's groups, the host's name); h starts at
 * MPIDBG_FNV64_BASIS. The keys are compared only within one job. */
#define MPIDBG_FNV64_BASIS 14695981039346656037ull
static inline uint64_t mpidbg_fnv64(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ull;
}

/* mpidbg_mono_ns: CLOCK_MONOTONIC in nanoseconds, one clock for all the
 * ranks of a host (the passive-target checks compare times taken on
 * different ranks). */
static inline int64_t mpidbg_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- datatypes as the checks see them ---- */
struct mpidbg_tinfo {
    uint64_t handle;
    int ok;            /* known and usable: the fields below are valid */
    int builtin;       /* a predefined type */
    int64_t size, extent, true_lb, true_ub;
    int64_t overlap_count; /* 0 never, -1 unknown */
    uint64_t site;     /* where it was made, 0 for predefined */
    int32_t call;
};

enum { MPIDBG_RD = 1, MPIDBG_WR = 2 };

/* Significance of a buffer side in a rooted collective. */
enum { MPIDBG_SIG_ALL = 0, MPIDBG_SIG_ROOT, MPIDBG_SIG_LEAF, MPIDBG_SIG_BOTH };
/* Where MPI_IN_PLACE is allowed. */
enum { MPIDBG_INPLACE_NO = 0, MPIDBG_INPLACE_ANY, MPIDBG_INPLACE_ROOT };

#define MPIDBG_MAX_SIDES 4
#define MPIDBG_INLINE_SEGS 4

struct mpidbg_side {
    const char *name;  /* the buffer argument */
    int mode;
    int nseg;          /* -1: one segment, not built yet (buf, count, ti) */
    struct mpidbg_seg *seg; /* inline or malloc'd */
    struct mpidbg_seg inl[2];
    int64_t lo, hi;    /* union of the segments' bounds */
    const void *buf;
    int64_t count;
    const struct mpidbg_tinfo *ti;
};

struct mpidbg_cobj;
struct mpidbg_wobj;

/* The context of one wrapped call. */
struct mpidbg_cx {
    int32_t call;
    int32_t nside;
    uint64_t site;
    struct mpidbg_cobj *co; /* the communicator, when valid */
    struct mpidbg_wobj *wo; /* the window, when valid */
    uint64_t comm;          /* as given */
    int32_t root_given;     /* a root argument was checked */
    int32_t at_root, at_leaf;
    int32_t peer, tag;      /* for request records */
    /* the peer of the send (receive) side is MPI_PROC_NULL: MPI neither
     * reads nor writes that buffer (MPI-4.1 §3.11), so it cannot conflict */
    uint8_t null_send, null_recv;
    int32_t persistent;
    int32_t nfound;
    int32_t xr_blocked;     /* the blocked-call record is this call's */
    void *xr_state;         /* a nonblocking collective's agreement, until the request exists */
    int32_t xr_rwin;        /* MPI_THREAD_MULTIPLE: a nonblocking receive's window, for its request (xr_threads.c) */
    struct mpidbg_xr_got *xr_kept; /* MPI_Imrecv: the shadow its probe took, for its request (xr_p2p.c) */
    int32_t refuse;         /* an MPI error class: the call must not reach MPI (MPIDBG_REFUSING) */
    /* set once nfound is not 0 (fatal.c): 0, FATAL_ERROR_HERE (an error
     * was reported with this context) or FATAL_SAID (the rank told
     * mpidbg that MPI's error handler will end it in this call) */
    int32_t fatal_said;
    /* a receive's buffer watched from before MPI saw the call
     * (requests_track.c): 0 not asked, 1 watched (tr_pre_id, until its
     * request takes it), 2 sampled out */
    int32_t tr_pre, tr_pre_id;
    struct mpidbg_side sides[MPIDBG_MAX_SIDES];
};

/* ---- MPI_Finalize (lifecycle.c) ---- */
/* mpidbg_finalize_now does MPI_Finalize's work at once, while MPI deletes
 * the attributes of MPI_COMM_SELF inside the wrapper's PMPI_Finalize and
 * will not reach the shim's own (keyvals.c); nothing otherwise. */
MPIDBG_HIDDEN void mpidbg_finalize_now(void);
/* mpidbg_self_callback_done: a delete callback of the program's returned
 * rc for an attribute of MPI_COMM_SELF (keyvals.c) */
MPIDBG_HIDDEN void mpidbg_self_callback_done(int rc);

/* ---- registry writer (reg.c) ---- */
MPIDBG_HIDDEN void mpidbg_wlock(void);
MPIDBG_HIDDEN void mpidbg_wunlock(void);
MPIDBG_HIDDEN void *mpidbg_table_add(struct mpidbg_table *t, uint32_t *serial_out);
MPIDBG_HIDDEN void mpidbg_table_publish(struct mpidbg_table *t);
MPIDBG_HIDDEN void mpidbg_registry_at_init(void);
MPIDBG_HIDDEN void mpidbg_registry_at_finalize(void);
MPIDBG_HIDDEN void mpidbg_predef_add(uint64_t handle, int basic, int32_t fhandle);
MPIDBG_HIDDEN void mpidbg_model_changed(void);
MPIDBG_HIDDEN void mpidbg_type_renamed(uint64_t h);

/* ---- objects (objects.c) ---- */
struct mpidbg_tobj {
    uint64_t handle;
    struct mpidbg_type *rec; /* NULL for predefined types */
    int32_t predef;
    int32_t basic;           /* datatype.Basic for predefined types, 0 if not modelled */
    int32_t refs;            /* handles the program holds (MPI_Type_get_contents adds) */
    int32_t call;
    int32_t opaque;          /* valid for MPI, made where the shim did not see it: not modelled */
    uint32_t xr_node;        /* its description in this rank's node arena (xr_node.h): offset + 1; 0 not yet; UINT32_MAX no room */
    int64_t size, lb, extent, true_lb, true_ub;
    /* cross-rank checks: the signature sent with messages, made once (xr_p2p.c) */
    uint8_t *xr_blob;        /* header, signature bytes, constructor expression */
    int32_t xr_state;        /* 0 not made, 1 made, -1 the model does not know the type */
    int32_t xr_len;
    /* the collectives' signature digests of count instances, as the Go
     * model made them (type_sighash.c) */
    struct mpidbg_sighash {
        uint32_t seq; /* a seqlock: odd while written */
        uint32_t gen; /* the object's sig_gen the digest was made for */
        int64_t count;
        uint64_t hash;
    } sighash[4];
    uint32_t sig_gen; /* atomic: bumped when the handle names another type */
};

/* mpidbg_type_sighash is the digest of count instances of t's signature
 * (datatype.Sig.HashRepeat), 0 when the model does not know t; made once
 * per type and count by the Go model, then read here without a lock. */
MPIDBG_HIDDEN uint64_t mpidbg_type_sighash(MPI_Datatype t, int64_t count);
/* mpidbg_type_sighash_forget: o's handle now names another type (under
 * the registry's write lock) */
MPIDBG_HIDDEN void mpidbg_type_sighash_forget(struct mpidbg_tobj *o);

struct mpidbg_cobj {
    uint64_t handle;
    struct mpidbg_comm *rec;
    int32_t size, rank, remote_size, inter;
    int32_t indeg, outdeg; /* neighbourhood collectives; -1 no topology */
    int32_t predef, freed, call, pad;
    /* cross-rank checks (xr_comm.c) */
    MPI_Comm xr;             /* the shadow; MPI_COMM_NULL: not checked */
    uint64_t gid;            /* job-wide id, the same on every member */
    uint64_t coll_seq;       /* collectives called on it so far */
    int32_t *peers;          /* world ranks of the group messages go to (remote group of an intercommunicator) */
    int32_t npeers;
    int32_t *members;        /* an intercommunicator's: world ranks of both groups, sorted (its collectives' members) */
    int32_t nmembers;
    struct mpidbg_xrace *races; /* recent wildcard receives (xr_p2p.c) */
    struct mpidbg_xcn *xcn;     /* its collectives agree through the node segment (xr_coll_node.c) */
};

struct mpidbg_gobj {
    uint64_t handle;
    struct mpidbg_group *rec;
    int32_t predef, refs, call, pad;
};

struct mpidbg_oobj {
    uint64_t handle;
    struct mpidbg_op *rec;
    int32_t predef, call;
};

struct mpidbg_wobj {
    uint64_t handle;
    struct mpidbg_win *rec;
    int32_t size, call; /* size of the window's group */
};

struct mpidbg_robj {
    uint64_t handle;
    struct mpidbg_request *rec;
    int32_t call;
    int32_t persistent;
    int32_t active;
    int32_t live;
    int32_t nseg, segcap;
    uint32_t serial;        /* the record's serial: a reused handle is a new request */
    int32_t starting;       /* inside MPI_Startall: its index + 1 (requests_start.c), else 0 */
    struct mpidbg_seg *seg; /* buffers, pending while active: inl, or malloc'd */
    MPI_Comm *newcomm;      /* MPI_Comm_idup: the communicator to record at completion */
    uint64_t ow_site;       /* a call that overwrote the program's variable holding it, 0 none */
    uint64_t start_site;    /* a persistent request's last MPI_Start(all), 0 none yet */
    int32_t ow_call;
    uint32_t any_id;        /* in the any calls' cache of that number (requests_any.c) */
    int32_t xr_claimed;     /* at MPI_Finalize: a lost message's shadow found this never-completed receive */
    int32_t xr_rwin;        /* MPI_THREAD_MULTIPLE: the receive's window until its shadow is pulled (xr_threads.c) */
    uint64_t xr_post;       /* when it was last posted (started), in the rank's order: completions pull shadows so */
    struct mpidbg_xr_got *xr_kept; /* MPI_Imrecv: the shadow of its message, taken by the probe that claimed it */
    struct mpidbg_xsend xr_xs; /* MPI_THREAD_MULTIPLE: a started persistent send's window */
    struct mpidbg_rslot *xr_slot; /* a persistent send being started: its description in the node ring (xr_p2p.c) */
    struct mpidbg_seg inl[2];
    void *xc;               /* a nonblocking collective's agreement in flight (xr_coll.c) */
    uint64_t coll_seq;      /* a collective's number on its communicator, for the blocked-call record */
    MPI_Comm xr;            /* the shadow of its communicator when it started (outlives MPI_Comm_free) */
    /* a receive of a derived datatype: the type's description (signature
     * and expression, xr_p2p.c) when it was posted, NULL otherwise; the
     * program may free the type at once (MPI-4.1 §5.1.9: the receive
     * completes normally) and MPI give its handle to another type before
     * the receive completes */
    const uint8_t *xr_rdesc;
    /* the access tracker (requests_track.c, track.c): the ids of its
     * buffers' watched ranges while active, and the cheap tier's copies
     * of its small send buffers */
    int32_t tr_n, tr_cap;
    uint64_t tr_site;       /* the call that started it (the sampling policy's site) */
    int32_t *tr_ids;        /* tr_inl, or malloc'd */
    int32_t tr_inl[4];
    int32_t snap_n;         /* segments copied, 0 none */
    int32_t snap_seg[4];    /* their indices in seg */
    int32_t snap_len[4];    /* the bytes copied of each, from its start */
    int32_t snap_bad;       /* an operation of MPI writes into a copied segment: no comparison */
    int32_t snap_moved;     /* MPI had the data when the send started (it completed then): a change is latent */
    int32_t snap_idx;       /* its place in the list of copies (requests_track.c) */
    uint8_t *snap;          /* snap_inl, or malloc'd */
    uint8_t snap_inl[32];
};

extern struct mpidbg_hmap mpidbg_types MPIDBG_HIDDEN, mpidbg_comms MPIDBG_HIDDEN,
    mpidbg_groups MPIDBG_HIDDEN, mpidbg_ops MPIDBG_HIDDEN, mpidbg_wins MPIDBG_HIDDEN,
    mpidbg_requests MPIDBG_HIDDEN;

MPIDBG_HIDDEN int mpidbg_tinfo_get(uint64_t handle, struct mpidbg_tinfo *ti);
/* A pack buffer's side (calls.tbl's from= span=): MPIDBG_FROM is the
 * offset a position parameter gives into a byte buffer of n bytes (0 when
 * it is not one: the side covers the whole buffer); mpidbg_packed_span the
 * bytes from there that count elements of type take packed (their size:
 * both MPIs pack native data without headers), at most what is left, and
 * what is left when the type is not known. */
#define MPIDBG_FROM(p, n) ((p) && *(p) > 0 && (int64_t)*(p) <= (int64_t)(n) ? (int64_t)*(p) : (int64_t)0)
MPIDBG_HIDDEN int64_t mpidbg_packed_span(int64_t at, int64_t n, int64_t count, MPI_Datatype type);
MPIDBG_HIDDEN struct mpidbg_tobj *mpidbg_type_predefined(MPI_Datatype t, int basic);
MPIDBG_HIDDEN void mpidbg_type_new(struct mpidbg_cx *cx, MPI_Datatype t, const MPI_Datatype *oldtypes, int64_t noldtypes);
MPIDBG_HIDDEN struct mpidbg_tobj *mpidbg_type_opaque(MPI_Datatype t);

/* probe.c: handles no recorded call made, adopted when MPI accepts them */
MPIDBG_HIDDEN struct mpidbg_tobj *mpidbg_adopt_type(uint64_t h);
MPIDBG_HIDDEN struct mpidbg_cobj *mpidbg_adopt_comm(uint64_t h);
MPIDBG_HIDDEN int mpidbg_adopt_group(uint64_t h);
MPIDBG_HIDDEN int mpidbg_adopt_op(uint64_t h);
MPIDBG_HIDDEN struct mpidbg_wobj *mpidbg_adopt_win(uint64_t h);
MPIDBG_HIDDEN int mpidbg_adopt_request(uint64_t h);
MPIDBG_HIDDEN void mpidbg_type_commit(struct mpidbg_cx *cx, MPI_Datatype t);
MPIDBG_HIDDEN void mpidbg_type_freed(struct mpidbg_cx *cx, uint64_t t, uint32_t serial);
MPIDBG_HIDDEN void mpidbg_type_ref(uint64_t t);
MPIDBG_HIDDEN struct mpidbg_cobj *mpidbg_comm_new(struct mpidbg_cx *cx, MPI_Comm c, int predef);
MPIDBG_HIDDEN void mpidbg_comm_freed(struct mpidbg_cx *cx, uint64_t c, uint32_t serial);
MPIDBG_HIDDEN void mpidbg_group_new(struct mpidbg_cx *cx, MPI_Group g, int predef);
MPIDBG_HIDDEN void mpidbg_group_freed(struct mpidbg_cx *cx, uint64_t g, uint32_t serial);
MPIDBG_HIDDEN void mpidbg_op_new(struct mpidbg_cx *cx, MPI_Op op, int predef, void *fn, int commute);
MPIDBG_HIDDEN void mpidbg_op_freed(struct mpidbg_cx *cx, uint64_t op, uint32_t serial);
MPIDBG_HIDDEN void mpidbg_win_new(struct mpidbg_cx *cx, MPI_Win w, void *base, int64_t size, int disp_unit, MPI_Comm comm);
MPIDBG_HIDDEN void mpidbg_win_freed(struct mpidbg_cx *cx, uint64_t w, uint32_t serial);
MPIDBG_HIDDEN void mpidbg_req_new(struct mpidbg_cx *cx, MPI_Request *r, int kind);
MPIDBG_HIDDEN void mpidbg_req_deferred_comm(struct mpidbg_cx *cx, MPI_Request r, MPI_Comm *newcomm);
MPIDBG_HIDDEN void mpidbg_type_set_name(MPI_Datatype t, const char *name);
MPIDBG_HIDDEN void mpidbg_comm_set_name(MPI_Comm c, const char *name);
MPIDBG_HIDDEN void mpidbg_objects_init(void);
enum { MPIDBG_OBJ_TYPE, MPIDBG_OBJ_COMM, MPIDBG_OBJ_GROUP, MPIDBG_OBJ_OP, MPIDBG_OBJ_WIN };
MPIDBG_HIDDEN uint32_t mpidbg_obj_serial(int kind, uint64_t h);
MPIDBG_HIDDEN void mpidbg_nested_freed(int kind, uint64_t h, uint32_t serial, void *ra);
MPIDBG_HIDDEN void mpidbg_leaks(struct mpidbg_cx *cx);

/* ---- requests and completion (requests.c) ---- */
/* A request a completion call takes, as it was before the call: MPI
 * overwrites the handle, and may hand the same value to a new request
 * (of another thread) before the shim records the completion, which the
 * serial tells apart. */
struct mpidbg_reqref {
    MPI_Request h;
    uint32_t serial;
    struct mpidbg_robj *o;
};
/* requests_track.c: their buffers and the access tracker */
MPIDBG_HIDDEN void mpidbg_req_track_start(struct mpidbg_cx *cx, struct mpidbg_robj *o, int moved);
MPIDBG_HIDDEN void mpidbg_req_track_pre(struct mpidbg_cx *cx);
MPIDBG_HIDDEN void mpidbg_req_track_pre_end(struct mpidbg_cx *cx);
MPIDBG_HIDDEN void mpidbg_req_track_release(struct mpidbg_robj *o);
MPIDBG_HIDDEN void mpidbg_req_track_release_all(const struct mpidbg_reqref *c, int n);
MPIDBG_HIDDEN void mpidbg_req_track_end(struct mpidbg_cx *cx, struct mpidbg_robj *o);
MPIDBG_HIDDEN struct mpidbg_robj *mpidbg_req_lookup(MPI_Request r);
MPIDBG_HIDDEN int mpidbg_req_check(struct mpidbg_cx *cx, MPI_Request r, const char *arg, int index);
MPIDBG_HIDDEN void mpidbg_req_started(struct mpidbg_robj *ro);
MPIDBG_HIDDEN void mpidbg_req_rma_flushed(MPI_Win win, int target);

/* ---- pending buffers (pending.c) ---- */
extern int mpidbg_npending MPIDBG_HIDDEN;
MPIDBG_HIDDEN void mpidbg_pending_add(struct mpidbg_robj *ro);    /* under the lock */
MPIDBG_HIDDEN void mpidbg_pending_remove(struct mpidbg_robj *ro); /* under the lock; then flush */
MPIDBG_HIDDEN void mpidbg_pending_flush(void);
MPIDBG_HIDDEN void mpidbg_pending_check(struct mpidbg_cx *cx);
MPIDBG_HIDDEN int mpidbg_seg_overlap(struct mpidbg_seg *a, struct mpidbg_seg *b, uint64_t *at);

/* ---- checks (roles.c): one function per role ---- */
MPIDBG_HIDDEN void mpidbg_side_free(struct mpidbg_cx *cx);
MPIDBG_HIDDEN void mpidbg_sides_ready(struct mpidbg_cx *cx);

/* ---- Python programs (python.c) ---- */
#include "python.h"

/* ---- Fortran programs (fortran.c) ---- */
#define MPIDBG_NBIND 8
struct mpidbg_text {
    uintptr_t lo, hi;
};
extern struct mpidbg_text mpidbg_bind[MPIDBG_NBIND] MPIDBG_HIDDEN; /* the Fortran bindings' code */
extern int mpidbg_nbind MPIDBG_HIDDEN;
/* mpidbg_binding_caller: ra, or when ra lies in a Fortran binding, the
 * program's call into the binding. */
MPIDBG_HIDDEN void *mpidbg_binding_caller(void *ra);
MPIDBG_HIDDEN int mpidbg_in_binding(uintptr_t pc); /* async-signal-safe */
/* mpidbg_text_of: the executable segment of the loaded object holding pc
 * (lifecycle.c); {0, 0} when none does. */
MPIDBG_HIDDEN struct mpidbg_text mpidbg_text_of(uintptr_t pc);

/* fatal.c: a call with an error finding goes on into MPI, whose error
 * handler may end the job there. mpidbg_fatal_found keeps the thread's
 * last error finding; mpidbg_fatal_ahead looks at the handler of the
 * call's object, mpidbg_fatal_raising at c's, on which the shim raises
 * the error itself; mpidbg_fatal_handler is given it (a handler the shim put
 * aside for the call); mpidbg_fatal_left: the call returned. */
enum { FATAL_ERROR_HERE = 1, FATAL_SAID = 2 };
MPIDBG_HIDDEN void mpidbg_fatal_found(struct mpidbg_cx *cx, const struct mpidbg_finding *f);
MPIDBG_HIDDEN void mpidbg_fatal_forget(void);
MPIDBG_HIDDEN void mpidbg_fatal_ahead(struct mpidbg_cx *cx);
MPIDBG_HIDDEN void mpidbg_fatal_raising(struct mpidbg_cx *cx, MPI_Comm c);
MPIDBG_HIDDEN void mpidbg_fatal_handler(struct mpidbg_cx *cx, MPI_Errhandler eh);
MPIDBG_HIDDEN void mpidbg_fatal_left(struct mpidbg_cx *cx);
extern void mpidbg_go_fatal(const char *id, const char *call, const char *handler, uint64_t site, int left);

static inline void mpidbg_enter(struct mpidbg_cx *cx, int call, void *ra)
{
    mpidbg_depth++;
    /* a thread's first call (threads.c) */
    if (__builtin_expect(!mpidbg_thread_seen, 0))
        mpidbg_thread_first();
    /* a polling episode (blocked.c) ends at any other call; a plain load
     * and store: another thread's call may go uncounted, never the
     * polling thread's own */
    __atomic_store_n(&mpidbg_ncalls, __atomic_load_n(&mpidbg_ncalls, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    cx->call = call;
    cx->nside = 0;
    if (__builtin_expect(mpidbg_nbind != 0, 0))
        ra = mpidbg_binding_caller(ra);
    cx->site = (uint64_t)(uintptr_t)ra;
    if (__builtin_expect(mpidbg_npy != 0, 0))
        cx->site = mpidbg_python_site((uintptr_t)ra); /* a Python script's line (python.c) */
    cx->co = NULL;
    cx->wo = NULL;
    cx->comm = 0;
    cx->root_given = 0;
    cx->at_root = 0;
    cx->at_leaf = 1;
    cx->peer = MPI_PROC_NULL;
    cx->null_send = cx->null_recv = 0;
    cx->tag = 0;
    cx->persistent = 0;
    cx->refuse = 0;
    cx->nfound = 0;
    cx->xr_blocked = 0;
    cx->xr_state = NULL;
    cx->xr_rwin = 0;
    cx->xr_kept = NULL;
    cx->tr_pre = 0;
}

/* mpidbg_cx_comm is the call's communicator when it has a valid one
 * (the one checked last, for a call with two), else MPI_COMM_WORLD
 * (MPI-3.1 §8.3, Open MPI's choice too): where MPI raises its error. */
static inline MPI_Comm mpidbg_cx_comm(const struct mpidbg_cx *cx)
{
    return cx->co ? (MPI_Comm)(uintptr_t)cx->co->handle : MPI_COMM_WORLD;
}

/* mpidbg_seg_untouched says whether MPI leaves a segment alone because its
 * side talks to MPI_PROC_NULL. */
static inline int mpidbg_seg_untouched(const struct mpidbg_cx *cx, int mode)
{
    return mode == MPIDBG_WR ? cx->null_recv : cx->null_send;
}

static inline void mpidbg_leave(struct mpidbg_cx *cx)
{
    if (__builtin_expect(cx->tr_pre == 1, 0))
        mpidbg_req_track_pre_end(cx);
    if (cx->nside)
        mpidbg_side_free(cx);
    if (__builtin_expect(__atomic_load_n(&mpidbg_rma_due, __ATOMIC_RELAXED), 0))
        mpidbg_rma_poll(); /* a window's target-side watch stalled or waits for the clock */
    mpidbg_track_exit(); /* pages the library opened are protected again; queued accesses reported */
    if (__builtin_expect(cx->nfound != 0, 0) && cx->fatal_said == FATAL_SAID)
        mpidbg_fatal_left(cx);
    mpidbg_depth--;
}

/* The slow paths of the inline checks below: they report. */
MPIDBG_HIDDEN void mpidbg_bad_count(struct mpidbg_cx *cx, int64_t count, const char *arg);
MPIDBG_HIDDEN void mpidbg_bad_dest(struct mpidbg_cx *cx, int dest, const char *arg);
MPIDBG_HIDDEN void mpidbg_bad_source(struct mpidbg_cx *cx, int source, const char *arg);
MPIDBG_HIDDEN void mpidbg_bad_tag(struct mpidbg_cx *cx, int tag, const char *arg, int recv);

static inline int mpidbg_chk_count(struct mpidbg_cx *cx, int64_t count, const char *arg)
{
    if (MPIDBG_LIKELY(count >= 0))
        return 1;
    mpidbg_bad_count(cx, count, arg);
    return 0;
}

static inline void mpidbg_chk_dest(struct mpidbg_cx *cx, int dest, const char *arg)
{
    cx->peer = dest;
    cx->null_send = dest == MPI_PROC_NULL;
    if (MPIDBG_LIKELY(cx->co && !cx->co->inter && (unsigned)dest < (unsigned)cx->co->size) || dest == MPI_PROC_NULL)
        return;
    mpidbg_bad_dest(cx, dest, arg);
}

static inline void mpidbg_chk_source(struct mpidbg_cx *cx, int source, const char *arg)
{
    cx->peer = source;
    cx->null_recv = source == MPI_PROC_NULL;
    if (MPIDBG_LIKELY(cx->co && !cx->co->inter && (unsigned)source < (unsigned)cx->co->size) ||
        source == MPI_PROC_NULL || source == MPI_ANY_SOURCE)
        return;
    mpidbg_bad_source(cx, source, arg);
}

static inline void mpidbg_chk_stag(struct mpidbg_cx *cx, int tag, const char *arg)
{
    cx->tag = tag;
    if (MPIDBG_LIKELY(tag >= 0 && tag <= mpidbg_tag_ub))
        return;
    mpidbg_bad_tag(cx, tag, arg, 0);
}

static inline void mpidbg_chk_rtag(struct mpidbg_cx *cx, int tag, const char *arg)
{
    cx->tag = tag;
    if (MPIDBG_LIKELY(tag >= 0 && tag <= mpidbg_tag_ub) || tag == MPI_ANY_TAG)
        return;
    mpidbg_bad_tag(cx, tag, arg, 1);
}
MPIDBG_HIDDEN struct mpidbg_cobj *mpidbg_chk_comm(struct mpidbg_cx *cx, MPI_Comm c, const char *arg);
MPIDBG_HIDDEN int mpidbg_chk_group(struct mpidbg_cx *cx, MPI_Group g, const char *arg);
MPIDBG_HIDDEN int mpidbg_chk_op(struct mpidbg_cx *cx, MPI_Op op, const char *arg);
MPIDBG_HIDDEN struct mpidbg_wobj *mpidbg_chk_win(struct mpidbg_cx *cx, MPI_Win w, const char *arg);
MPIDBG_HIDDEN int mpidbg_chk_counts(struct mpidbg_cx *cx, const void *counts, size_t elem, int64_t n, const char *arg);
MPIDBG_HIDDEN int mpidbg_chk_array(struct mpidbg_cx *cx, const void *a, int64_t n, const char *arg);
MPIDBG_HIDDEN int mpidbg_chk_type(struct mpidbg_cx *cx, MPI_Datatype t, const char *arg, int commit, struct mpidbg_tinfo *ti);
MPIDBG_HIDDEN int mpidbg_chk_types(struct mpidbg_cx *cx, const MPI_Datatype *t, const void *counts, size_t elem, int64_t n, const char *arg, int commit);
MPIDBG_HIDDEN void mpidbg_chk_trank(struct mpidbg_cx *cx, int rank, const char *arg);
MPIDBG_HIDDEN void mpidbg_chk_root(struct mpidbg_cx *cx, int root, const char *arg);
MPIDBG_HIDDEN int64_t mpidbg_nproc(struct mpidbg_cx *cx);
MPIDBG_HIDDEN int64_t mpidbg_ngroup(struct mpidbg_cx *cx);
MPIDBG_HIDDEN int64_t mpidbg_sum(const void *counts, size_t elem, int64_t n);
MPIDBG_HIDDEN int64_t mpidbg_nin(struct mpidbg_cx *cx);
MPIDBG_HIDDEN int64_t mpidbg_nout(struct mpidbg_cx *cx);
MPIDBG_HIDDEN int mpidbg_myrank(struct mpidbg_cx *cx);
MPIDBG_HIDDEN int mpidbg_sig(struct mpidbg_cx *cx, const void *buf, const char *arg, int sig, int inplace);
MPIDBG_HIDDEN void mpidbg_side(struct mpidbg_cx *cx, int mode, const void *buf, const char *arg, int64_t count, const struct mpidbg_tinfo *ti);
MPIDBG_HIDDEN void mpidbg_side_v(struct mpidbg_cx *cx, int mode, const void *buf, const char *arg,
                                 const void *counts, size_t celem, const void *displs, size_t delem, int bytes,
                                 int64_t n, const struct mpidbg_tinfo *ti, const MPI_Datatype *types);
MPIDBG_HIDDEN void mpidbg_chk_overlaps(struct mpidbg_cx *cx);
MPIDBG_HIDDEN void mpidbg_chk_reqout(struct mpidbg_cx *cx, const MPI_Request *r, const char *arg);
MPIDBG_HIDDEN int mpidbg_chk_freetype(struct mpidbg_cx *cx, const MPI_Datatype *t, const char *arg);
MPIDBG_HIDDEN int mpidbg_chk_committype(struct mpidbg_cx *cx, const MPI_Datatype *t, const char *arg);
MPIDBG_HIDDEN void mpidbg_chk_freecomm(struct mpidbg_cx *cx, const MPI_Comm *c, const char *arg);
MPIDBG_HIDDEN void mpidbg_chk_freegroup(struct mpidbg_cx *cx, const MPI_Group *g, const char *arg);
MPIDBG_HIDDEN void mpidbg_chk_freeop(struct mpidbg_cx *cx, const MPI_Op *op, const char *arg);
MPIDBG_HIDDEN void mpidbg_chk_freewin(struct mpidbg_cx *cx, const MPI_Win *w, const char *arg);

/* ---- reporting (finding.c) ---- */
MPIDBG_HIDDEN void mpidbg_ev_init(struct mpidbg_ev *ev, struct mpidbg_cx *cx, int fid, const char *arg);
MPIDBG_HIDDEN void mpidbg_report(struct mpidbg_cx *cx, struct mpidbg_ev *ev);
MPIDBG_HIDDEN int mpidbg_enabled(int fid);
MPIDBG_HIDDEN void mpidbg_report_init(void);
MPIDBG_HIDDEN void mpidbg_checks_init(void); /* MPIDBG_CHECKS into mpidbg_disabled; idempotent */

#endif
