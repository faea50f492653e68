/*
 * Handles the shim never saw made: before calling one invalid, ask MPI.
 *
 * A handle can be valid without a wrapper having recorded it: a call the
 * table does not cover (the MPI-4 large-count _c constructors, sessions),
 * or an object made inside a callback, where calls bypass the shim. Such
 * a handle is adopted (recorded as known, without a creation site, and
 * never reported as leaked); only a handle MPI itself rejects is a
 * finding. The probe sets MPI_ERRORS_RETURN on MPI_COMM_WORLD and
 * MPI_COMM_SELF for its one call and restores the program's handlers; it
 * runs only for handles the shim does not know, so a correct program
 * pays it once per such handle.
 */
#define _GNU_SOURCE 1 /* process_vm_readv, for Open MPI */
#include "shim.h"

#ifdef OPEN_MPI
#include <sys/uio.h>
#include <unistd.h>

/* Open MPI's class descriptors (opal_object.h): every object starts with
 * a pointer to its class, and a class names its parent second. */
extern char opal_datatype_t_class[], ompi_communicator_t_class[], ompi_group_t_class[], ompi_op_t_class[],
    ompi_win_t_class[], ompi_request_t_class[];

/* readable copies n bytes from this process's address a, or fails
 * without a fault where nothing is mapped (process_vm_readv(2)). */
static int readable(uint64_t a, void *out, size_t n)
{
    struct iovec local = {out, n}, remote = {(void *)(uintptr_t)a, n};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

/* Open MPI follows a handle's pointer, so only a handle that points at
 * an object of the kind's class (or a class derived from it, as a PML's
 * requests are) may be given to it. A datatype's is opal_datatype_t: the
 * predefined ones are made of that class (MPI_CXX_BOOL, MPI_LOGICAL1 and
 * the others the shim has no model of are adopted through it), derived
 * ones of ompi_datatype_t, which derives from it. */
static int askable(int kind, uint64_t h)
{
    static char *const want[] = {
        [MPIDBG_HK_TYPE] = opal_datatype_t_class, [MPIDBG_HK_COMM] = ompi_communicator_t_class,
        [MPIDBG_HK_GROUP] = ompi_group_t_class,   [MPIDBG_HK_OP] = ompi_op_t_class,
        [MPIDBG_HK_WIN] = ompi_win_t_class,       [MPIDBG_HK_REQUEST] = ompi_request_t_class,
    };
    uint64_t cls;
    if (!h || h % 8 || !readable(h, &cls, sizeof cls))
        return 0;
    for (int depth = 0; cls && depth < 8; depth++) {
        if (cls == (uint64_t)(uintptr_t)want[kind])
            return 1;
        uint64_t cp[2]; /* cls_name, cls_parent */
        if (cls % 8 || !readable(cls, cp, sizeof cp))
            return 0;
        cls = cp[1];
    }
    return 0;
}
#else
/* MPICH rejects a bad handle with an error, except a "direct" handle
 * (bits 30-31 = 2) whose index is beyond the object kind's preallocated
 * array, on which it asserts and aborts. Such a handle, a handle of
 * another object kind (bits 26-29) and an unknown builtin are invalid
 * without asking: the finding must come out before MPI dies of it. The
 * numbers are MPICH 4's (mpir_objects.h). */
static int askable(int kind, uint64_t h)
{
    static const struct {
        unsigned objkind, prealloc;
    } k[] = {
        [MPIDBG_HK_TYPE] = {3, 8}, [MPIDBG_HK_COMM] = {1, 8}, [MPIDBG_HK_GROUP] = {2, 8},
        [MPIDBG_HK_OP] = {6, 16},  [MPIDBG_HK_WIN] = {8, 8},  [MPIDBG_HK_REQUEST] = {11, 8},
    };
    uint32_t v = (uint32_t)h;
    if (h > 0xffffffffu || ((v >> 26) & 0xf) != k[kind].objkind)
        return 0;
    switch (v >> 30) {
    case 2:
        return (v & 0x03ffffffu) < k[kind].prealloc;
    case 3:
        return 1;
    }
    return 0;
}
#endif

int mpidbg_followable(int kind, uint64_t h)
{
#ifdef OPEN_MPI
    return askable(kind, h);
#else
    (void)kind, (void)h;
    return 1;
#endif
}

static int probe(int kind, uint64_t h)
{
    if (!askable(kind, h))
        return 0;
    MPI_Errhandler ew = MPI_ERRHANDLER_NULL, es = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &ew);
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &es);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_ERR_OTHER, n, flag;
    switch (kind) {
    case MPIDBG_HK_TYPE: {
        MPI_Count size;
        rc = PMPI_Type_size_x((MPI_Datatype)h, &size);
        break;
    }
    case MPIDBG_HK_COMM:
        rc = PMPI_Comm_size((MPI_Comm)h, &n);
        break;
    case MPIDBG_HK_GROUP:
        rc = PMPI_Group_size((MPI_Group)h, &n);
        break;
    case MPIDBG_HK_OP:
        rc = PMPI_Op_commutative((MPI_Op)h, &n);
        break;
    case MPIDBG_HK_WIN: {
        MPI_Group g;
        rc = PMPI_Win_get_group((MPI_Win)h, &g);
        if (rc == MPI_SUCCESS)
            PMPI_Group_free(&g);
        break;
    }
    case MPIDBG_HK_REQUEST:
        rc = PMPI_Request_get_status((MPI_Request)h, &flag, MPI_STATUS_IGNORE);
        break;
    }
    if (ew != MPI_ERRHANDLER_NULL) {
        PMPI_Comm_set_errhandler(MPI_COMM_WORLD, ew);
        PMPI_Errhandler_free(&ew);
    }
    if (es != MPI_ERRHANDLER_NULL) {
        PMPI_Comm_set_errhandler(MPI_COMM_SELF, es);
        PMPI_Errhandler_free(&es);
    }
    return rc == MPI_SUCCESS;
}

struct mpidbg_tobj *mpidbg_adopt_type(uint64_t h)
{
    if (!probe(MPIDBG_HK_TYPE, h))
        return NULL;
    return mpidbg_type_opaque((MPI_Datatype)h);
}

struct mpidbg_cobj *mpidbg_adopt_comm(uint64_t h)
{
    if (!probe(MPIDBG_HK_COMM, h))
        return NULL;
    return mpidbg_comm_new(NULL, (MPI_Comm)h, 1);
}

int mpidbg_adopt_group(uint64_t h)
{
    if (!probe(MPIDBG_HK_GROUP, h))
        return 0;
    mpidbg_group_new(NULL, (MPI_Group)h, 1);
    return 1;
}

int mpidbg_adopt_op(uint64_t h)
{
    if (!probe(MPIDBG_HK_OP, h))
        return 0;
    mpidbg_op_new(NULL, (MPI_Op)h, 1, NULL, 0);
    return 1;
}

struct mpidbg_wobj *mpidbg_adopt_win(uint64_t h)
{
    if (!probe(MPIDBG_HK_WIN, h))
        return NULL;
    mpidbg_win_new(NULL, (MPI_Win)h, NULL, 0, 1, MPI_COMM_NULL);
    return mpidbg_hmap_get(&mpidbg_wins, h);
}

int mpidbg_adopt_request(uint64_t h)
{
    return probe(MPIDBG_HK_REQUEST, h);
}
