/*
 * What the C side and the Go side of the shim share: the event a check
 * hands to Go, a buffer segment, and the functions each side calls in
 * the other. No MPI types here: the Go files include this header.
 */
#ifndef MPIDBG_ENGINE_H
#define MPIDBG_ENGINE_H

#include <stdint.h>

#include "reg.h"

/* The finding ids and categories, and the enums an event's fields take
 * (enum mpidbg_hkind, used by mpidbg_followable and the probe too): all
 * generated from package checks, where each finding is defined. */
#include "findings_gen.h"

/* One entry of a collective that some ranks agree on (checks.Group). */
struct mpidbg_coll_group {
    const int32_t *ranks; /* world ranks */
    int32_t nranks;
    int32_t call;         /* call id */
    int32_t mode;         /* enum mpidbg_callmode */
    int32_t has_root;     /* the group is a gather's or scatter's root */
    int64_t root, scount, rcount; /* a count is -1 where the call has none */
    /* the datatypes with the counts, by their low two bits: 3 a basic
     * type (datatype.Basic above them), 2 a handle of this rank's above
     * them, 1 a datatype the program made, 0 none */
    uint64_t stype, rtype;
    const char *op;       /* the operation's name */
};

/* An event: everything the Go side needs to write one finding. */
struct mpidbg_ev {
    int32_t fid;      /* enum mpidbg_fid */
    int32_t variant;  /* enum mpidbg_variant */
    int32_t call;     /* call id (calls_gen.h) */
    int32_t index;    /* array index of arg, -1 if arg is not an array entry */
    uint64_t site;    /* return address of the MPI call */
    const char *arg;  /* the argument concerned, e.g. "count" */
    int64_t val, lim;
    uint64_t handle;  /* the object concerned (datatype, comm, request...) */
    uint64_t handle2; /* a second object (the other buffer's datatype) */
    int64_t count, count2;
    uint64_t addr, addr2; /* buffers */
    uint64_t at;          /* overlap: the first shared byte */
    uint64_t related_site;
    int32_t related_call; /* call that made the related object, -1 none */
    int32_t related_kind; /* enum mpidbg_related */
    int32_t hkind;        /* handle's kind: enum mpidbg_hkind, MPIDBG_HK_NONE when not set */
    const char *text;     /* a datum in words: a constructor's rule, an argument's or a communicator's name */
    /* cross-rank findings: the element path a detector computed, and the
     * places in other ranks (module hash and offset, see xr_p2p.c) with
     * their world rank, MPI call and access (enum mpidbg_access) */
    const char *path;
    int32_t nremote, pad2;
    int32_t remote_rank[2];
    uint32_t remote_mod[2];
    uint64_t remote_off[2];
    int32_t remote_call[2];
    int32_t remote_access[2];
    /* one-sided: the target process (world rank), the epoch (enum
     * mpidbg_epoch), the displacement unit in bytes */
    int32_t target, epoch;
    int64_t unit;
    uint32_t flags, pad3; /* MPIDBG_FLAG_ bits */
    /* collective-*: the groups of ranks with equal entries */
    const struct mpidbg_coll_group *groups;
    int32_t ngroups;
    /* another rank the finding names without a place (world rank) */
    int32_t peer;
    /* ranks the finding is about (world ranks) */
    const int32_t *ranks;
    int32_t nranks, pad4;
    /* the datatypes of a collective's block and its partner, sent and
     * received, encoded as struct mpidbg_coll_group's stype and rtype */
    uint64_t stype, rtype;
};

/* The slow path of point-to-point type matching (xr.go): the sender's
 * description as it came in the shadow message, the receive's side. */
struct mpidbg_xrmatch {
    const uint8_t *sig;   /* the sender's signature bytes */
    const uint8_t *expr;  /* its constructor expression, may be empty */
    int32_t siglen, exprlen;
    int64_t scount;
    int32_t srank, scall; /* world rank, call id */
    uint64_t rtype;       /* the receive's datatype handle */
    /* the receive datatype's signature and expression as they were when
     * the receive was posted (its handle may name another type by now);
     * rsig NULL: rtype's */
    const uint8_t *rsig, *rexpr;
    int32_t rsiglen, rexprlen;
    int64_t rcount;
    int32_t rcall, pad;
    /* the two calls' places, for the language of each side's path: the
     * receive's return address, the sender's module hash and offset */
    uint64_t rsite, soff;
    uint32_t smod, pad2;
    /* out */
    char msg[1024];
    char path[256];
    int32_t fid_truncated; /* 1: message-truncated, 0: type-mismatch */
};

/* The datatypes of one one-sided call (rma_types.c, rma_types.go), in
 * the direction the data moves: from the side with count scount of
 * stype to the side with rcount of rtype. */
struct mpidbg_rmamatch {
    uint64_t stype, rtype;
    int64_t scount, rcount;
    int32_t call, dir; /* dir: MPIDBG_RMA_DIR_* */
    uint64_t site;     /* the call's return address, for the language of the paths */
    /* out */
    char msg[1024];
    char path[256];
    int32_t truncated, pad2; /* 1: the data does not fit, else a mismatch */
};
enum { MPIDBG_RMA_DIR_TO_TARGET, MPIDBG_RMA_DIR_TO_ORIGIN, MPIDBG_RMA_DIR_TO_RESULT };

/* A piece of a buffer: count instances of type at addr, with the bytes
 * its data spans, [lo, hi). */
struct mpidbg_seg {
    uint64_t addr;
    int64_t count;
    uint64_t type;
    int64_t lo, hi;
    int32_t mode; /* MPIDBG_RD or MPIDBG_WR */
    int32_t side; /* index of the side in the call */
};

/* ---- the Go side (engine.go); declared here for the C callers ---- */
extern void mpidbg_go_init(void);
extern void mpidbg_go_finalize(int64_t findings);
extern void mpidbg_go_sessions_only(void); /* Hello, a note that the process went unchecked, Bye (sessions.c) */
extern int64_t mpidbg_go_overlap_count(uint64_t type);
extern int mpidbg_go_ctor_check(int combiner, int32_t *ints, int nints, int64_t *addrs, int naddrs,
                                uint64_t *types, int ntypes, char *out, int outlen);
extern int mpidbg_go_overlap(struct mpidbg_seg *a, struct mpidbg_seg *b, uint64_t *at);
extern struct mpidbg_finding *mpidbg_go_report(struct mpidbg_ev *ev);
extern uint8_t *mpidbg_go_type_blob(uint64_t type, int32_t *len); /* malloc'd: u32 siglen, u32 exprlen, sig, expr; NULL unknown */
extern int mpidbg_go_xr_match(struct mpidbg_xrmatch *m);           /* 1: a finding to report, m->msg says it */
extern int mpidbg_go_rma_match(struct mpidbg_rmamatch *m);         /* 1: a finding to report, m->msg says it */
extern void mpidbg_go_note(char *text);                           /* a note for the report, about this rank's checks */
extern uint64_t mpidbg_go_sig_hash(uint64_t type, int64_t count);  /* hash of count x type's signature; 0 unknown */
extern void mpidbg_go_enter(void);                                   /* nothing: binds the calling thread to Go */
extern int64_t mpidbg_go_basic_size(int32_t basic);                /* the model's size of a datatype.Basic; -1 unknown */

/* Helpers the Go side calls (reg.c, finding.c). */
#define MPIDBG_GOAPI __attribute__((visibility("hidden")))
extern int mpidbg_spawned MPIDBG_GOAPI; /* MPI_Comm_spawn started this process (spawn.c) */
MPIDBG_GOAPI uint64_t mpidbg_type_record_addr(uint64_t handle); /* 0 if not a recorded derived type */
MPIDBG_GOAPI uint64_t mpidbg_model_epoch(void);  /* changes when the predefined types change */
MPIDBG_GOAPI uint64_t mpidbg_renamed_seq(void);  /* how many MPI_Type_set_name calls changed a record */
MPIDBG_GOAPI uint64_t mpidbg_renamed_at(uint64_t seq); /* the handle renamed by call seq (mod MPIDBG_RENAMED) */
#define MPIDBG_RENAMED 64
MPIDBG_GOAPI int mpidbg_predef_count(void);
MPIDBG_GOAPI void mpidbg_predef_at(int i, uint64_t *handle, int32_t *basic);
MPIDBG_GOAPI int mpidbg_read_mem(void *dst, uint64_t addr, uint64_t n); /* 0 ok, -1 unreadable */
MPIDBG_GOAPI struct mpidbg_finding *mpidbg_ring_put(uint64_t site, uint64_t related_site, uint32_t severity,
                                                    const char *id, const char *category, const char *call,
                                                    const char *path, const char *message);
MPIDBG_GOAPI int mpidbg_site_info(uint64_t pc, char *module, int len, uint64_t *offset);
MPIDBG_GOAPI const char *mpidbg_fid_name(int fid);
MPIDBG_GOAPI const char *mpidbg_call_name(int call);
MPIDBG_GOAPI int mpidbg_world_size_get(void);

#endif
