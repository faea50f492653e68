/*
 * The sessions model (MPI-4.1 §11.3): a process may use MPI without
 * MPI_Init, through MPI_Session_init, psets and communicators made
 * from groups, and end with MPI_Session_finalize; it may also call
 * MPI_Init later.
 *
 * The shim's checks start at MPI_Init: its registry, the world's
 * shadow communicators, the node segment and the launcher connection
 * are all made from MPI_COMM_WORLD. A process that uses sessions alone
 * is not checked. So that the run says so, instead of reporting that no
 * rank reached mpidbg, such a process says Hello when it exits (its world
 * rank asked from the mpi://WORLD pset at its first session), a note that
 * it went unchecked, and Bye. At exit, not at MPI_Session_finalize: a
 * process that calls MPI_Init after its sessions must reach the launcher
 * there, with the job's token, which the first connection uses up. A
 * process that called MPI_Init says nothing here.
 */
#include <stdlib.h>
#include <unistd.h>

#include "shim.h"

#if MPI_VERSION >= 4
static int noted, world_rank = -1, world_size;

static void announce(void)
{
    if (mpidbg_world_rank >= 0 || world_rank < 0)
        return; /* MPI_Init came: the process was checked from there */
    mpidbg_registry.world_rank = world_rank;
    mpidbg_registry.world_size = world_size;
    mpidbg_registry.pid = (int32_t)getpid();
    mpidbg_go_sessions_only();
}

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    int rc = PMPI_Session_init(info, errhandler, session);
    if (rc != MPI_SUCCESS || mpidbg_depth || __atomic_exchange_n(&noted, 1, __ATOMIC_ACQ_REL))
        return rc;
    MPI_Group g = MPI_GROUP_NULL;
    int rank = -1, size = 0;
    if (PMPI_Group_from_session_pset(*session, "mpi://WORLD", &g) == MPI_SUCCESS && g != MPI_GROUP_NULL) {
        if (PMPI_Group_rank(g, &rank) == MPI_SUCCESS && PMPI_Group_size(g, &size) == MPI_SUCCESS && rank >= 0) {
            world_rank = rank;
            world_size = size;
            atexit(announce);
        }
        PMPI_Group_free(&g);
    }
    return rc;
}
#endif
