/*
 * The sessions model (MPI-4.1 §11.3): a process may use MPI without
 * MPI_Init, through MPI_Session_init, psets and communicators made
 * from groups, and end with MPI_Session_finalize.
 *
 * The shim's checks start at MPI_Init: its registry, the world's
 * shadow communicators, the node segment and the launcher connection
 * are all made from MPI_COMM_WORLD, which a sessions-only process never
 * has. Such a process is not checked. So that the run says so, instead
 * of reporting that no rank reached mpidbg, the process says Hello at its
 * last MPI_Session_finalize (its world rank from the mpi://WORLD pset,
 * asked before the session ends), a note that it went unchecked, and
 * Bye. A process that also calls MPI_Init is checked from there on and
 * says nothing here.
 */
#include <unistd.h>

#include "shim.h"

#if MPI_VERSION >= 4
static int open_sessions;

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    int rc = PMPI_Session_init(info, errhandler, session);
    if (rc == MPI_SUCCESS)
        __atomic_add_fetch(&open_sessions, 1, __ATOMIC_RELAXED);
    return rc;
}

/* world asks the session for this process's place in the world pset. */
static int world(MPI_Session s, int *rank, int *size)
{
    MPI_Group g = MPI_GROUP_NULL;
    if (PMPI_Group_from_session_pset(s, "mpi://WORLD", &g) != MPI_SUCCESS || g == MPI_GROUP_NULL)
        return 0;
    int ok = PMPI_Group_rank(g, rank) == MPI_SUCCESS && PMPI_Group_size(g, size) == MPI_SUCCESS && *rank >= 0;
    PMPI_Group_free(&g);
    return ok;
}

int MPI_Session_finalize(MPI_Session *session)
{
    int last = session && *session != MPI_SESSION_NULL &&
               __atomic_sub_fetch(&open_sessions, 1, __ATOMIC_RELAXED) == 0;
    int rank, size;
    if (last && !mpidbg_depth && mpidbg_world_rank < 0 && !mpidbg_active && world(*session, &rank, &size)) {
        mpidbg_registry.world_rank = rank;
        mpidbg_registry.world_size = size;
        mpidbg_registry.pid = (int32_t)getpid();
        mpidbg_go_sessions_only();
    }
    return PMPI_Session_finalize(session);
}
#endif
