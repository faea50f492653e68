/*
 * What the rank is blocked in, for the deadlock detector. The C side
 * writes it around every call that can block (blocked.c); the Go side
 * (watch.go) reads it from another thread every few tens of
 * milliseconds, tells the launcher when a call has not returned for a
 * while, and again when it returns. No MPI types: Go includes this.
 *
 * Consistency: a seqlock. The writer makes seq odd, writes, makes it
 * even; a reader copies the struct and retries when seq was odd or
 * changed. One record per process below MPI_THREAD_MULTIPLE; above, one
 * per thread, composed into the rank's when the watcher reads it
 * (blocked.c, docs/threads.md).
 *
 * A rank that polls (MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome on
 * the same incomplete requests, and no other MPI call in between) keeps
 * a record too, marked polling, between the calls: the poll counters
 * below say how long it has polled and how much of that time it spent
 * inside the tests, which tells a rank that only waits from one that
 * computes while it polls (watch.go).
 */
#ifndef MPIDBG_BLOCKED_H
#define MPIDBG_BLOCKED_H

#include <stdint.h>

/* What one entry waits for. */
enum mpidbg_wait_kind {
    MPIDBG_WAIT_RECV = 1, /* a message from peer (comm rank; -1: any rank of comm) */
    MPIDBG_WAIT_SEND,     /* peer to take a message (synchronous, or not buffered) */
    MPIDBG_WAIT_COLL,     /* every rank of comm to reach collective number coll_seq */
    MPIDBG_WAIT_OTHER,    /* something the detector cannot name (RMA, I/O, generalized) */
    MPIDBG_WAIT_SYNC,     /* peer's part of a post-start-complete-wait epoch on window comm (blocked_win.c) */
};

/* How the entries combine. */
enum { MPIDBG_WAIT_AND = 0, MPIDBG_WAIT_OR = 1 };

struct mpidbg_wait {
    int32_t kind;      /* enum mpidbg_wait_kind */
    int32_t peer;      /* rank in comm (remote group for intercommunicators); -1 any */
    int32_t tag;       /* MPI_ANY_TAG allowed */
    int32_t call;      /* the call that started the operation (calls_gen.h) */
    int32_t win;       /* 1: comm is a window handle, comm_id its job-wide id, peer a rank of its group (blocked_win.c) */
    int32_t pad;
    uint64_t comm;     /* the communicator handle, as this rank knows it */
    uint64_t comm_id;  /* the communicator's job-wide id (mpidbg_cobj.gid); 0 unknown */
    uint64_t coll_seq; /* WAIT_COLL: the collective's number on comm (on the window: its fences and frees), from 1 */
    uint64_t site;     /* where the operation started (a request's start), 0 this call */
    /* a blocking send between ranks of one host: its slot in the node
     * ring (struct mpidbg_rslot *) and the word the send published there;
     * once the word changed, the receiver took the message (its receive
     * completed), and the send waits for nobody: mpidbg_blocked_taken */
    uint64_t slot, slot_word;
};

#define MPIDBG_WAIT_MAX 16   /* entries kept; nwait may be larger (then truncated) */
#define MPIDBG_STACK_MAX 32

struct mpidbg_blocked {
    volatile uint64_t seq;   /* seqlock; also counts calls: begin and end each add 2 */
    int32_t active;          /* inside a blocking call */
    int32_t call;            /* call id (calls_gen.h) */
    uint64_t site;           /* return address of the call */
    int64_t since_ns;        /* CLOCK_MONOTONIC when it began */
    int32_t mode;            /* MPIDBG_WAIT_AND or MPIDBG_WAIT_OR */
    int32_t nwait;           /* entries the call waits for (may exceed MPIDBG_WAIT_MAX) */
    int32_t zero_buffered;   /* a standard-mode send made synchronous by --buffering=zero */
    int32_t nframes;         /* stack, filled on request (mpidbg_blocked_stack) */
    int32_t polling;         /* not inside a call: polling the requests of the waits (struct mpidbg_poll) */
    int32_t pad;
    struct mpidbg_wait wait[MPIDBG_WAIT_MAX];
    uint64_t frames[MPIDBG_STACK_MAX]; /* return addresses, innermost first */
    char args[256];          /* the call's arguments, "dest=1, tag=0, comm=MPI_COMM_WORLD" */
};

/* A polling episode, in CLOCK_MONOTONIC_COARSE nanoseconds: when the first
 * test began, when the last one returned, the time spent inside the
 * tests that returned, when the test under way began (0: none). Written
 * by the polling thread outside the seqlock (each field is one aligned
 * store); the record's seq names the episode. */
struct mpidbg_poll {
    int64_t start_ns, last_ns, in_ns, enter_ns, now_ns;
};

/* The Go side reads these (blocked.c). */
#define MPIDBG_GOAPI_B __attribute__((visibility("hidden")))
MPIDBG_GOAPI_B void mpidbg_poll_read(struct mpidbg_poll *out); /* now_ns: the time of the read */
MPIDBG_GOAPI_B int mpidbg_blocked_read(struct mpidbg_blocked *out); /* 1 when a consistent copy was made */
MPIDBG_GOAPI_B int mpidbg_blocked_stack(uint64_t seq);  /* capture the stack of call seq; 1 when taken */
/* mpidbg_blocked_taken: whether the receiver took the message of the
 * send that wait w waits for (see slot above) */
MPIDBG_GOAPI_B int mpidbg_blocked_taken(const struct mpidbg_wait *w);
MPIDBG_GOAPI_B int mpidbg_comm_world_ranks(uint64_t comm, int32_t *out, int32_t max, int32_t all); /* size, or -1 */
MPIDBG_GOAPI_B int mpidbg_win_world_ranks(uint64_t win, int32_t *out, int32_t max); /* size, or -1 (blocked_win.c) */
MPIDBG_GOAPI_B void mpidbg_win_name(uint64_t win, char *out, int n);

#endif
