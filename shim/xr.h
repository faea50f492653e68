/*
 * Cross-rank checks: the shim's internal interface for type
 * matching, message races, lost messages and collective consistency, and
 * the blocked-call record. docs/cross-rank.md says why it works this way;
 * docs/DESIGN-SCALE.md what it costs.
 *
 * The mechanism in one paragraph: every communicator the program makes
 * gets a private duplicate, its shadow. Each send also sends, on the
 * shadow, with the same destination and tag, a small message describing
 * the real one (the sender's type signature, count, logical clock and
 * call site). When a receive completes, the shim receives the shadow
 * message from the status's source and tag: MPI's non-overtaking rule
 * (MPI-4.1 §3.5) pairs the n-th shadow from a source and tag with the
 * n-th real message, wildcards included. Collectives first agree, on the
 * shadow, on what is being called.
 */
#ifndef MPIDBG_XR_H
#define MPIDBG_XR_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "blocked.h"
#include "calls_gen.h"

struct mpidbg_cx;
struct mpidbg_rslot;

/* Error handlers swapped for one call: the communicators of its receives
 * get MPI_ERRORS_RETURN, so that a truncation is reported before MPI's
 * handler runs (xr_p2p.c). */
#define MPIDBG_EHSWAP_MAX 4
struct mpidbg_ehswap {
    int n;
    MPI_Comm comm[MPIDBG_EHSWAP_MAX];
    MPI_Errhandler eh[MPIDBG_EHSWAP_MAX];
};

/* A send's window under MPI_THREAD_MULTIPLE (xr_threads.c). */
struct mpidbg_xsend {
    int32_t on, amb;
    uint32_t bucket, pad;
    uint64_t start;
};
#define MPIDBG_XRW_LOST (-1) /* a receive window the table had no room for: ambiguous */

/* A point-to-point call, as the generated wrapper gives it. */
struct mpidbg_xp {
    MPI_Comm comm;
    int32_t send, recv;         /* which sides the call has */
    int32_t nonblocking, persistent, probe;
    int32_t dest, stag, source, rtag;
    int64_t scount, rcount;
    MPI_Datatype stype, rtype;
    MPI_Status *status;         /* never MPI_STATUS_IGNORE: the wrapper substitutes */
    int32_t status_ignored;     /* the program passed MPI_STATUS_IGNORE */
    MPI_Message *message;       /* MPI_Mprobe, MPI_Mrecv... */
    int *flag;                  /* MPI_Iprobe, MPI_Improbe: whether the probe matched */
    /* set by mpidbg_xp_pre */
    int32_t sync;               /* --buffering=zero: call the synchronous form */
    struct mpidbg_ehswap eh;    /* a blocking receive's communicator */
    struct mpidbg_cobj *co;     /* the communicator, when checked */
    struct mpidbg_xsend xs;     /* MPI_THREAD_MULTIPLE: the send's window */
    int32_t rwin;               /* MPI_THREAD_MULTIPLE: the receive's window */
    uint64_t post;              /* a blocking receive: when it was posted, in requests' order (mpidbg_next_post) */
    struct mpidbg_rslot *slot;   /* a send: its description in the node ring, written before MPI sees the send */
    struct mpidbg_xr_got *kept;  /* MPI_Mrecv: the shadow its probe took, NULL when the receive takes it */
    int32_t shadowed;           /* a send-receive's send part: its shadow went before the call */
};

/* A collective call. Per side: a block count, or a counts array (v),
 * and a type, or a types array (w). */
struct mpidbg_xc {
    int32_t kind;               /* call id of the blocking form */
    int32_t mode;               /* enum mpidbg_callmode */
    int32_t root;               /* -1: no root */
    int32_t pad;
    uint64_t op;                /* 0: no op */
    const void *sbuf, *rbuf;
    int64_t scount, rcount;     /* -1: none */
    const void *scounts, *rcounts;
    size_t scelem, rcelem;
    MPI_Datatype stype, rtype;
    const MPI_Datatype *stypes, *rtypes;
    /* set by mpidbg_xc_pre */
    struct mpidbg_cobj *co;
    uint64_t seq;               /* the collective's number on the communicator */
    int32_t blocked;
};

#define MPIDBG_HIDDEN_XR __attribute__((visibility("hidden")))

MPIDBG_HIDDEN_XR extern int mpidbg_xr_on;        /* the checks run: MPIDBG_CHECKS does not turn them off */
MPIDBG_HIDDEN_XR extern int mpidbg_xr_zero;      /* MPIDBG_BUFFERING=zero */
MPIDBG_HIDDEN_XR extern int mpidbg_xr_unsure;    /* the clock may be below its past (xr_p2p.c) */
MPIDBG_HIDDEN_XR int mpidbg_world_size(void);
MPIDBG_HIDDEN_XR uint64_t mpidbg_xr_clock_merge(uint64_t c);
MPIDBG_HIDDEN_XR uint64_t mpidbg_xr_clock_tick(void);

static inline void mpidbg_xp_init(struct mpidbg_xp *xp, MPI_Comm comm)
{
    __builtin_memset(xp, 0, sizeof *xp);
    xp->comm = comm;
    xp->dest = xp->source = MPI_PROC_NULL;
}

/* mpidbg_xc_count_at is element i of a collective's counts array, of
 * int or (the _c forms) MPI_Count elements; 0 without an array */
static inline int64_t mpidbg_xc_count_at(const void *a, size_t elem, int64_t i)
{
    if (!a)
        return 0;
    return elem == 8 ? ((const int64_t *)a)[i] : ((const int *)a)[i];
}

static inline void mpidbg_xc_init(struct mpidbg_xc *xc, int kind, int mode)
{
    __builtin_memset(xc, 0, sizeof *xc);
    xc->kind = kind;
    xc->mode = mode;
    xc->root = -1;
    xc->scount = xc->rcount = -1;
    xc->stype = xc->rtype = MPI_DATATYPE_NULL;
}

/* mpidbg_standard_send: the standard-mode sends, which --buffering=zero
 * makes synchronous (shim/gen/xr.go's syncForm). */
static inline int mpidbg_standard_send(int call)
{
    return call == MPIDBG_CALL_MPI_Send || call == MPIDBG_CALL_MPI_Isend || call == MPIDBG_CALL_MPI_Send_init ||
           call == MPIDBG_CALL_MPI_Send_c || call == MPIDBG_CALL_MPI_Isend_c || call == MPIDBG_CALL_MPI_Send_init_c;
}

/* xr_p2p.c */
/* sites.c: call sites as another rank can name them, and findings
 * reported once per pair of places */
MPIDBG_HIDDEN_XR void mpidbg_site_code(uint64_t pc, uint64_t *off, uint32_t *mod);
MPIDBG_HIDDEN_XR int mpidbg_seen_pair(uint64_t a, uint64_t b);
MPIDBG_HIDDEN_XR void mpidbg_xp_pre(struct mpidbg_cx *cx, struct mpidbg_xp *xp);
MPIDBG_HIDDEN_XR int mpidbg_xp_post(struct mpidbg_cx *cx, struct mpidbg_xp *xp, int rc);
MPIDBG_HIDDEN_XR void mpidbg_xr_init(void);
MPIDBG_HIDDEN_XR void mpidbg_xr_finalize(struct mpidbg_cx *cx);
/* requests.c calls these: a persistent send started, a receive request
 * completed with status (rc: the completion's error for it). */
struct mpidbg_robj;
MPIDBG_HIDDEN_XR void mpidbg_xr_started(struct mpidbg_robj *o);
MPIDBG_HIDDEN_XR void mpidbg_xr_recv_done(struct mpidbg_robj *o, const MPI_Status *st, int err);
/* A receive request as it was before MPI completed it: under
 * MPI_THREAD_MULTIPLE another thread may be handed the same handle, and
 * with it the record, before the completion is looked at
 * (requests_complete.c). o is NULL when it takes no shadow. */
struct mpidbg_xr_rsnap {
    struct mpidbg_robj *o;
    uint32_t serial;
    int32_t call;
    uint64_t comm, site, type;
    int64_t count;
    int32_t peer, tag, rwin, pad;
    uint64_t post;
    MPI_Comm xr;
    const uint8_t *rdesc; /* the request's xr_rdesc */
    struct mpidbg_xr_got *kept; /* the request's xr_kept */
};
/* A shadow message as taken: its header, then its signature and
 * expression (xr_p2p.c). pulled: one was taken; valid: it is a shadow;
 * unsure: which receive it belongs to is not known, so it checks
 * nothing; deferred: none yet, a matched probe's whose shadow had not
 * come, which its receive takes. */
#define MPIDBG_XR_MAX 4096
struct mpidbg_xr_got {
    int32_t pulled, valid, unsure, deferred;
    uint64_t len;
    uint64_t buf[MPIDBG_XR_MAX / 8];
};
/* mpidbg_xr_pull takes the shadow of the next message from src with tag
 * on co (its node ring, or its shadow communicator xr). */
MPIDBG_HIDDEN_XR void mpidbg_xr_pull(struct mpidbg_cobj *co, MPI_Comm xr, int src, int tag, struct mpidbg_xr_got *g);
/* Receives completed out of their posting order (xr_order.c).
 * mpidbg_xr_posted: a receive request was posted or started.
 * mpidbg_xr_order, before a receive's completion takes its shadow: the
 * shadows of the messages that receives posted before it by the same
 * thread took first (MPI-4.1 §3.5: of two receives that match a
 * message, the first posted gets it) are taken and kept for them, and
 * when this receive's was kept for it, *g gets it and 1 is returned. o
 * is NULL for a blocking receive, posted at post. */
MPIDBG_HIDDEN_XR void mpidbg_xr_posted(const struct mpidbg_robj *o);
MPIDBG_HIDDEN_XR int mpidbg_xr_order(struct mpidbg_cobj *co, MPI_Comm xr, const struct mpidbg_robj *o, uint32_t serial,
                                     uint64_t post, int src, int tag, struct mpidbg_xr_got *g);
MPIDBG_HIDDEN_XR void mpidbg_xr_snap(const struct mpidbg_robj *o, struct mpidbg_xr_rsnap *s);
MPIDBG_HIDDEN_XR void mpidbg_xr_recv_posted(struct mpidbg_robj *o);
MPIDBG_HIDDEN_XR void mpidbg_xr_recv_snap(const struct mpidbg_xr_rsnap *s, const MPI_Status *st, int err);
MPIDBG_HIDDEN_XR int mpidbg_xr_is_recv(const struct mpidbg_robj *o);
MPIDBG_HIDDEN_XR int mpidbg_xr_truncated(int err);
MPIDBG_HIDDEN_XR void mpidbg_eh_swap(struct mpidbg_ehswap *sw, MPI_Comm c);
MPIDBG_HIDDEN_XR int mpidbg_eh_restore(struct mpidbg_cx *cx, struct mpidbg_ehswap *sw, int rc);

/* xr_race.c: message races. A message a receive took, as its shadow
 * described it (sig NULL when the sender's type is not modelled), and
 * the receive; wanted with mpidbg_xr_mu held. */
struct mpidbg_xr_msg {
    int32_t src, world, tag, call; /* source in the communicator, in MPI_COMM_WORLD; the send's call */
    uint64_t clock, site_off;
    uint32_t site_mod, siglen;
    int64_t count;
    const uint8_t *sig;
    int32_t clock_ok, pad; /* the shadow is this message's own: its clock holds */
};
struct mpidbg_xr_recv {
    int32_t source, tag, call; /* as the program asked; MPI_ANY_SOURCE - 1 for a matched probe's */
    int32_t blind;             /* the program asked for no status (MPI_STATUS_IGNORE): it cannot know the source */
    MPI_Datatype type;
    int64_t count;
    uint64_t site;
    uint64_t post; /* when it was posted (mpidbg_next_post), 0 unknown */
};
MPIDBG_HIDDEN_XR void mpidbg_xr_race(struct mpidbg_cobj *co, const struct mpidbg_xr_msg *m, const struct mpidbg_xr_recv *r);
MPIDBG_HIDDEN_XR void mpidbg_xr_race_finalize(void);
MPIDBG_HIDDEN_XR void mpidbg_xr_race_probed(struct mpidbg_cobj *co);
MPIDBG_HIDDEN_XR uint64_t mpidbg_next_post(void); /* requests.c: postings and starts numbered in the rank's order */
MPIDBG_HIDDEN_XR const uint8_t *mpidbg_xr_type_blob(MPI_Datatype t, uint32_t *siglen, uint32_t *exprlen);

/* xr_threads.c: which pairs of shadows and messages threads may have
 * mixed up. The ends say EXACT (the pair is right), SWAP (it may be
 * another's, but one just like it: the signature check holds, the clock
 * and the race check do not) or AMBIG (nothing holds). The key says what
 * makes two windows alike (mpidbg_xr_key); the _locked ends want
 * mpidbg_xr_mu held; receive windows' ids are 0 below
 * MPI_THREAD_MULTIPLE; src < 0 at the end: no message. */
enum { MPIDBG_XR_EXACT = 0, MPIDBG_XR_SWAP = 1, MPIDBG_XR_AMBIG = 2 };
MPIDBG_HIDDEN_XR extern pthread_mutex_t mpidbg_xr_mu;
MPIDBG_HIDDEN_XR uint64_t mpidbg_xr_key(uint64_t type, int64_t count, uint64_t site, int call);
MPIDBG_HIDDEN_XR void mpidbg_xs_begin(struct mpidbg_xsend *s, uint64_t comm, int dest, int tag, uint64_t key);
MPIDBG_HIDDEN_XR int mpidbg_xs_end_locked(struct mpidbg_xsend *s);
MPIDBG_HIDDEN_XR int mpidbg_xs_now_locked(const struct mpidbg_xsend *s);
MPIDBG_HIDDEN_XR void mpidbg_xs_abort(struct mpidbg_xsend *s);
MPIDBG_HIDDEN_XR int32_t mpidbg_xrw_begin(uint64_t comm, int src, int tag, uint64_t key);
MPIDBG_HIDDEN_XR int mpidbg_xrw_end(int32_t id, int src, int tag);
MPIDBG_HIDDEN_XR int mpidbg_xrw_end_locked(int32_t id, int src, int tag);
MPIDBG_HIDDEN_XR int mpidbg_xrw_open_locked(void);  /* receive windows open */
MPIDBG_HIDDEN_XR uint64_t mpidbg_xr_unique_key(void); /* a key alike to no other */
MPIDBG_HIDDEN_XR void mpidbg_xr_start(struct mpidbg_robj *o);
MPIDBG_HIDDEN_XR void mpidbg_xr_req_gone(struct mpidbg_robj *o);

/* xr_coll.c */
MPIDBG_HIDDEN_XR void mpidbg_xc_pre(struct mpidbg_cx *cx, struct mpidbg_xc *xc);
MPIDBG_HIDDEN_XR int mpidbg_xc_post(struct mpidbg_cx *cx, struct mpidbg_xc *xc, int rc, MPI_Request *req);
MPIDBG_HIDDEN_XR void mpidbg_xc_req_done(struct mpidbg_robj *o, int wait);
/* at a communicator's creation, after its shadow: whether its
 * collectives agree through the node segment (xr_coll_node.c) */
MPIDBG_HIDDEN_XR void mpidbg_xc_comm_new(struct mpidbg_cobj *co);
/* A block that does not pair with its partner: what is sent and
 * received, the index into the counts array (a neighbourhood
 * collective's: the edge), the other rank (in MPI_COMM_WORLD), the
 * sender's and the receiver's datatype (mpidbg_xc_type_code); reported
 * as found by ranks, bad: this rank is one of them. */
struct mpidbg_pairing {
    int64_t sends, recvs;
    int32_t index, peer;
    uint32_t stype, rtype;
};
/* mpidbg_xc_type_code names a datatype in 32 bits that another process
 * of the job can name too (xr_coll.c) */
MPIDBG_HIDDEN_XR uint32_t mpidbg_xc_type_code(MPI_Datatype t);
/* mpidbg_xc_comparable is a block's count, or -1 (nothing to compare)
 * when its datatype is one the model does not know: its digest is 0,
 * which would differ from any partner's */
MPIDBG_HIDDEN_XR int64_t mpidbg_xc_comparable(int64_t count, int64_t hash);
MPIDBG_HIDDEN_XR void mpidbg_xc_report_pairs(struct mpidbg_cobj *co, uint64_t site, int call, int kind, int32_t *ranks,
                                             int nranks, int bad, const struct mpidbg_pairing *pr);

/* xr_coll_nbr.c: a neighbourhood collective's blocks, count, digest and index
 * per edge (out: sent, want: received, got: what the in-neighbours
 * send), exchanged on the shadow with the collective's own pattern;
 * mpidbg_nbr_new gives NULL when there is nothing to compare. */
struct mpidbg_nbr {
    int32_t nout, nin, topo, pad;
    int64_t *out, *want, *got;
    MPI_Request r;
};
MPIDBG_HIDDEN_XR int mpidbg_nbr_kind(int kind);
MPIDBG_HIDDEN_XR struct mpidbg_nbr *mpidbg_nbr_new(struct mpidbg_cobj *co, const struct mpidbg_xc *xc);
MPIDBG_HIDDEN_XR int mpidbg_nbr_start(struct mpidbg_cobj *co, struct mpidbg_nbr *nb);
MPIDBG_HIDDEN_XR int mpidbg_nbr_step(struct mpidbg_nbr *nb, int wait); /* 1: the exchange is over */
MPIDBG_HIDDEN_XR void mpidbg_nbr_judge(struct mpidbg_cobj *co, const struct mpidbg_nbr *nb, uint64_t site, int call,
                                       int kind);
MPIDBG_HIDDEN_XR void mpidbg_nbr_free(struct mpidbg_nbr *nb);

/* xr_wait.c: the shim's own nonblocking collective, waited for while
 * yielding the processor; the MPI error code */
MPIDBG_HIDDEN_XR int mpidbg_xr_wait(MPI_Request *r);

/* xr_comm.c: shadows and job-wide ids. A communicator object the shim
 * made without a shadow holds 0 or MPI_COMM_NULL there. */
#define mpidbg_xr_has(co) ((co)->xr != MPI_COMM_NULL && (co)->xr != (MPI_Comm)0)
/* mpidbg_xr_comm_new gives c its shadow; from is the communicator c was
 * duplicated from (MPI_Comm_dup), else MPI_COMM_NULL. Collective over c. */
MPIDBG_HIDDEN_XR void mpidbg_xr_comm_new(struct mpidbg_cobj *co, MPI_Comm c, MPI_Comm from);
/* mpidbg_comm_twin makes a communicator of the shim's own with c's groups
 * and ranks and none of the program's attributes on it. Blocking,
 * collective over c. */
MPIDBG_HIDDEN_XR int mpidbg_comm_twin(MPI_Comm c, MPI_Comm *out);
MPIDBG_HIDDEN_XR void mpidbg_xr_comm_freed(struct mpidbg_cobj *co);
MPIDBG_HIDDEN_XR struct mpidbg_cobj *mpidbg_xr_comm(struct mpidbg_cx *cx, MPI_Comm c);
MPIDBG_HIDDEN_XR int32_t mpidbg_xr_world_of(struct mpidbg_cobj *co, int peer);
/* mpidbg_xr_message: a matched probe handed out m, on c, with the shadow
 * of its message when the probe could take it (kept, the record's from
 * then on); mpidbg_xr_message_comm: MPI_Mrecv or MPI_Imrecv receives m,
 * and takes the record's communicator, window and shadow;
 * mpidbg_xr_messages_held: the messages probed and never received, at
 * MPI_Finalize. */
MPIDBG_HIDDEN_XR void mpidbg_xr_message(MPI_Message m, MPI_Comm c, int32_t rwin, struct mpidbg_xr_got *kept);
MPIDBG_HIDDEN_XR MPI_Comm mpidbg_xr_message_comm(MPI_Message m, int32_t *rwin, struct mpidbg_xr_got **kept);
/* mpidbg_xr_kept_free frees a shadow a probe kept (NULL: nothing), a
 * deferred claim's included */
MPIDBG_HIDDEN_XR void mpidbg_xr_kept_free(struct mpidbg_xr_got *g);
MPIDBG_HIDDEN_XR void mpidbg_xr_messages_held(void (*fn)(void *arg, MPI_Comm c, const struct mpidbg_xr_got *g),
                                              void *arg);

/* blocked.c */
MPIDBG_HIDDEN_XR void mpidbg_blocked_begin(struct mpidbg_cx *cx, int mode);
MPIDBG_HIDDEN_XR void mpidbg_blocked_wait(int kind, int peer, int tag, struct mpidbg_cobj *co, uint64_t coll_seq,
                                          int call, uint64_t site);
MPIDBG_HIDDEN_XR void mpidbg_blocked_wait_win(int kind, int peer, uint64_t win, uint64_t win_id, uint64_t coll_seq, int call);
/* mpidbg_blocked_more: the call waits for n more than the record lists */
MPIDBG_HIDDEN_XR void mpidbg_blocked_more(int n);
MPIDBG_HIDDEN_XR void mpidbg_blocked_publish(void);
/* mpidbg_blocked_slot: the last wait added is a send whose message is
 * described in ring slot s (blocked.h) */
MPIDBG_HIDDEN_XR void mpidbg_blocked_slot(const struct mpidbg_rslot *s);
MPIDBG_HIDDEN_XR void mpidbg_blocked_end(void);
/* mpidbg_blocked_pause: the program's own code runs inside the call (a
 * user-defined operation's function, userops.c): the thread is not
 * waiting meanwhile. Returns whether its record was active;
 * mpidbg_blocked_resume(that) makes it active again, with a new seq, as
 * a call that made progress. */
MPIDBG_HIDDEN_XR int mpidbg_blocked_pause(void);
MPIDBG_HIDDEN_XR void mpidbg_blocked_resume(int was);
MPIDBG_HIDDEN_XR void mpidbg_blocked_init(void);
/* A polling episode (blocked.h): a test begins; a test completed
 * nothing: 1 when it goes on with the episode, 0 when the caller writes
 * a new record (mpidbg_blocked_begin, the waits, mpidbg_poll_publish); a
 * test completed something. mpidbg_ncalls counts the wrappers entered. */
MPIDBG_HIDDEN_XR void mpidbg_poll_enter(void);
MPIDBG_HIDDEN_XR int mpidbg_poll_continues(uint64_t key);
MPIDBG_HIDDEN_XR void mpidbg_poll_publish(uint64_t key);
MPIDBG_HIDDEN_XR void mpidbg_poll_stop(void);
MPIDBG_HIDDEN_XR extern uint64_t mpidbg_ncalls;
/* blocked_win.c: windows in the record. A window was made (collectively
 * over comm); a synchronisation call begins (its record, when it can
 * block) and ends. */
struct mpidbg_rma_sync;
MPIDBG_HIDDEN_XR void mpidbg_blocked_win_new(MPI_Win w, MPI_Comm comm);
MPIDBG_HIDDEN_XR void mpidbg_blocked_sync(struct mpidbg_cx *cx, struct mpidbg_rma_sync *s);
MPIDBG_HIDDEN_XR void mpidbg_blocked_sync_end(struct mpidbg_cx *cx);

#endif
