/*
 * The mpidbg registry, version 1: everything the shim knows about a rank's
 * MPI objects, in this process's memory, in a layout that a debugger can
 * decode without calling any function: gdb on a live rank or a core file,
 * a /proc/PID/mem reader, and the Go engine inside the rank all read it
 * with the same decoder (package registry).
 *
 * Found through one exported symbol, mpidbg_registry. Every field is
 * fixed-width and naturally aligned, in the machine's byte order (the
 * decoder reads little-endian LP64); addresses are 64-bit. Handles are
 * stored zero-extended to 64 bits whatever sizeof(MPI_Datatype) is
 * (handle_size says which: 4 for MPICH's integers, 8 for Open MPI's
 * pointers).
 *
 * Consistency: a writer makes generation odd before it changes anything
 * and even again after, with release ordering (a seqlock). A reader that
 * sees the same even generation before and after its reads has a
 * consistent view; a process stopped at an arbitrary instruction may show
 * an odd generation, and the decoder then reports the view as possibly
 * torn rather than failing. Records never move once written: tables grow
 * by adding chunks, so a record's address stays valid for the life of the
 * process, and a reader never follows a freed pointer.
 *
 * Changing this layout means bumping MPIDBG_REGISTRY_VERSION and teaching
 * the decoder both versions.
 */
#ifndef MPIDBG_REGISTRY_H
#define MPIDBG_REGISTRY_H

#include <stdint.h>

#define MPIDBG_REGISTRY_MAGIC   "MPIDBGR"   /* 7 characters and a NUL */
#define MPIDBG_REGISTRY_VERSION 1
#define MPIDBG_CHUNKS           32          /* chunk i holds first_chunk << i records */
#define MPIDBG_NAME_MAX         64

/* mpi: which MPI library the shim was built for. */
enum mpidbg_mpi {
    MPIDBG_MPI_MPICH   = 1,
    MPIDBG_MPI_OPENMPI = 2,
};

/* Object states (the state field of every record): bits. */
enum mpidbg_state {
    MPIDBG_LIVE       = 1u << 0, /* created and not freed */
    MPIDBG_COMMITTED  = 1u << 1, /* datatypes: MPI_Type_commit was called */
    MPIDBG_FREED      = 1u << 2, /* freed by the program (record kept for use-after-free) */
    MPIDBG_ACTIVE     = 1u << 3, /* requests: the operation is in flight */
    MPIDBG_PERSISTENT = 1u << 4, /* requests: made by a *_init call */
    MPIDBG_PREDEFINED = 1u << 5, /* MPI's own object (MPI_COMM_WORLD, MPI_SUM...) */
};

/*
 * A table of fixed-size records. Records 0 .. count-1 are published; the
 * record with index i lives in chunk c = the largest c with
 * first_chunk*((1<<c)-1) <= i, at position i - first_chunk*((1<<c)-1).
 * A slot whose object was freed may be reused for a new object with the
 * same handle; serial tells the two apart.
 */
struct mpidbg_table {
    uint32_t rec_size;    /* bytes per record: newer shims may append fields */
    uint32_t count;       /* records published */
    uint32_t first_chunk; /* records in chunk 0 */
    uint32_t pad;
    uint64_t chunks[MPIDBG_CHUNKS]; /* chunk addresses, 0 while unallocated */
};

/* A predefined datatype: its handle and what it is (datatype.Basic). */
struct mpidbg_predef {
    uint64_t handle;
    int32_t  basic;   /* datatype.Basic numbering: CHAR = 1 ... LONG_DOUBLE_INT = 40, INTEGER = 41 ... 2DOUBLE_PRECISION = 63 */
    int32_t  fhandle; /* MPI_Type_c2f(handle): its Fortran INTEGER handle; 0 not known */
};

/*
 * A derived datatype, with its constructor arguments exactly as
 * MPI_Type_get_contents returns them (MPI-4.1 §5.1.13): integers,
 * addresses and datatype handles.
 */
struct mpidbg_type {
    uint64_t handle;
    uint64_t site;      /* return address of the call that made it */
    uint64_t free_site; /* return address of MPI_Type_free, 0 if not freed */
    uint64_t ints;      /* address of int32_t[nints] */
    uint64_t addrs;     /* address of int64_t[naddrs] (MPI_Aint) */
    uint64_t types;     /* address of uint64_t[ntypes] (handles) */
    int32_t  nints, naddrs, ntypes;
    int32_t  combiner;  /* datatype.Combiner numbering: NAMED 0 ... RESIZED 12 */
    uint32_t state;     /* enum mpidbg_state */
    uint32_t serial;    /* creation number in this table, from 1 */
    int64_t  size;      /* MPI_Type_size, in bytes */
    int64_t  lb, extent;           /* MPI_Type_get_extent, in bytes */
    int64_t  true_lb, true_extent; /* MPI_Type_get_true_extent, in bytes */
    int64_t  overlap_count; /* smallest count at which a buffer of this type
                               overlaps itself; 0 never, -1 not known yet */
    char     name[MPIDBG_NAME_MAX]; /* MPI_Type_set_name, NUL-terminated */
    /* appended (a table's rec_size of 184 has none): */
    int32_t  fhandle;   /* MPI_Type_c2f(handle): its Fortran INTEGER handle; 0 not known */
    uint32_t pad;
};

/* A request: a nonblocking or persistent operation. */
struct mpidbg_request {
    uint64_t handle;
    uint64_t site;     /* return address of the call that started it */
    uint64_t buf;      /* the buffer (receive buffer for a collective) */
    uint64_t datatype; /* handle */
    uint64_t comm;     /* handle (window handle for RMA requests) */
    int64_t  count;
    int32_t  peer;     /* dest or source in comm; MPI_ANY_SOURCE, MPI_PROC_NULL as given */
    int32_t  tag;
    int32_t  call;     /* call id of the call that made it (shim/calls.tbl order) */
    uint32_t state;    /* enum mpidbg_state */
    uint32_t serial;
    uint32_t kind;     /* enum mpidbg_req_kind */
    uint64_t buf2;     /* the send buffer of a collective, 0 otherwise */
    uint64_t datatype2;
    int64_t  count2;
};

enum mpidbg_req_kind {
    MPIDBG_REQ_SEND = 1, /* the buffer is only read */
    MPIDBG_REQ_RECV = 2, /* the buffer is written */
    MPIDBG_REQ_COLL = 3, /* buf is written, buf2 read */
    MPIDBG_REQ_RMA  = 4,
    MPIDBG_REQ_OTHER = 5,
};

/* A communicator, with its ranks translated to MPI_COMM_WORLD. */
struct mpidbg_comm {
    uint64_t handle;
    uint64_t site;
    uint64_t world_ranks; /* address of int32_t[size]: world rank of each rank; 0 if not known */
    int32_t  size, rank;  /* rank is MPI_UNDEFINED if not a member; remote size for intercomms in remote_size */
    int32_t  remote_size; /* 0 for intracommunicators */
    uint32_t state;
    uint32_t serial;
    uint32_t pad;
    char     name[MPIDBG_NAME_MAX];
};

struct mpidbg_group {
    uint64_t handle;
    uint64_t site;
    uint64_t world_ranks; /* address of int32_t[size], MPI_UNDEFINED where not in world; 0 if not known */
    int32_t  size, rank;
    uint32_t state;
    uint32_t serial;
};

struct mpidbg_op {
    uint64_t handle;
    uint64_t site;
    uint64_t fn; /* the user function */
    int32_t  commute;
    uint32_t state;
    uint32_t serial;
    uint32_t pad;
};

struct mpidbg_win {
    uint64_t handle;
    uint64_t site;
    uint64_t base;
    int64_t  size; /* in bytes */
    uint64_t comm;
    int32_t  disp_unit;
    uint32_t state;
    uint32_t serial;
    uint32_t pad;
};

/*
 * A finding, as the rank reported it. The ring holds the newest
 * findings_cap of them: finding number n (from 1) is in slot (n-1) % cap
 * and carries seq n.
 */
struct mpidbg_finding {
    uint64_t seq;          /* 0 while the slot was never written */
    uint64_t site;         /* return address of the MPI call */
    uint64_t related_site; /* e.g. where the datatype was made, 0 if none */
    int32_t  rank;         /* MPI_COMM_WORLD rank */
    uint32_t severity;     /* 0 error, 1 warning, 2 info */
    char     id[48];       /* catalogue id, e.g. "type-not-committed" */
    char     category[24]; /* e.g. "datatype-lifecycle" */
    char     call[40];     /* e.g. "MPI_Send" */
    char     path[200];    /* type-tree path of the element concerned, "" if none */
    char     message[600];
};

/*
 * A call site that is not a code address: a call a Python script made
 * (through mpi4py, CPython 3.11), found in the interpreter's frame. Any
 * site field (records, findings) with MPIDBG_PYSITE_TAG set is one: its
 * low 32 bits are the index of its record in the pysites table. A code
 * address never has bit 63 set in user space.
 */
#define MPIDBG_PYSITE_TAG      (1ull << 63)
#define MPIDBG_IS_PYSITE(s)    (((s) & MPIDBG_PYSITE_TAG) != 0)
#define MPIDBG_PYSITE_INDEX(s) ((uint32_t)(s))

struct mpidbg_pysite {
    uint64_t file;     /* address of the script's absolute path, UTF-8, NUL-terminated */
    uint64_t function; /* address of the code object's qualified name ("main", "Solver.step", "<module>") */
    uint64_t native;   /* return address of the native call into MPI (in mpi4py's extension module), 0 if none */
    uint64_t code;     /* the code object, as an identity only */
    int32_t  line;     /* the line of the call in file, 0 unknown */
    uint32_t offset;   /* the call's instruction, in code units from the start of the code */
};

struct mpidbg_registry {
    char     magic[8];       /* MPIDBG_REGISTRY_MAGIC */
    uint32_t version;        /* MPIDBG_REGISTRY_VERSION */
    uint32_t header_size;    /* sizeof(struct mpidbg_registry) */
    uint64_t generation;     /* seqlock: odd while a writer is changing anything */
    uint32_t mpi;            /* enum mpidbg_mpi */
    uint32_t handle_size;    /* sizeof(MPI_Datatype) */
    int32_t  world_rank;     /* -1 before MPI_Init */
    int32_t  world_size;
    int32_t  pid;
    uint32_t flags;          /* enum mpidbg_flags */
    uint64_t findings_total; /* findings recorded since start */
    uint32_t findings_cap;
    uint32_t pad;
    uint64_t findings;       /* address of struct mpidbg_finding[findings_cap] */
    struct mpidbg_table predefined, types, requests, comms, groups, ops, wins;
    /* appended: a reader finds it when header_size covers it */
    struct mpidbg_table pysites; /* struct mpidbg_pysite, indexed by MPIDBG_PYSITE_INDEX */
};

enum mpidbg_flags {
    MPIDBG_INITIALIZED = 1u << 0,
    MPIDBG_FINALIZED   = 1u << 1,
};

extern struct mpidbg_registry mpidbg_registry;

#endif
