/*
 * Processes outside the job: those MPI_Comm_spawn and
 * MPI_Comm_spawn_multiple start (MPI-4.1 §11.8.2).
 *
 * mpidbg run counts the job's ranks before it starts them, and its report,
 * its deadlock detector and the cross-rank checks know a rank by its rank
 * in MPI_COMM_WORLD. A spawned process has a world of its own, whose rank 0
 * is not the job's rank 0, so it is not one of the job's ranks: it has the
 * shim (the launcher hands the ranks' environment on) and makes every
 * check a rank makes alone, but it does not connect to mpidbg run, whose
 * report would take it for a rank it already has; it writes what it finds
 * on standard error, named as a spawned process. The spawning side's
 * root notes in the report that it started processes and where their
 * findings go. The communicators between the two worlds have no shadow
 * (xr_comm.c), so their traffic is not checked across ranks.
 */
#include <stdio.h>

#include "shim.h"

int mpidbg_spawned;

void mpidbg_spawn_init(void)
{
    MPI_Comm parent = MPI_COMM_NULL;
    if (PMPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent != MPI_COMM_NULL)
        mpidbg_spawned = 1;
}

/* started notes, at the spawning communicator's root, how many processes
 * the call started. */
static void started(const char *call, int root, MPI_Comm comm, MPI_Comm *intercomm)
{
    int rank = -1, n = 0;
    if (!intercomm || *intercomm == MPI_COMM_NULL || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || rank != root ||
        PMPI_Comm_remote_size(*intercomm, &n) != MPI_SUCCESS || n <= 0)
        return;
    char text[320];
    snprintf(text, sizeof text,
             "%s started %d process%s outside the job: %s checked on %s own and write%s what %s find%s on standard "
             "error, not into this report; messages between %s and the job are not checked across ranks",
             call, n, n == 1 ? "" : "es", n == 1 ? "it is" : "they are", n == 1 ? "its" : "their", n == 1 ? "s" : "",
             n == 1 ? "it" : "they", n == 1 ? "s" : "", n == 1 ? "it" : "them");
    mpidbg_go_note(text);
}

void mpidbg_post_MPI_Comm_spawn(struct mpidbg_cx *cx, const char *command, char *argv[], int maxprocs, MPI_Info info,
                                int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    (void)cx, (void)command, (void)argv, (void)maxprocs, (void)info, (void)array_of_errcodes;
    started("MPI_Comm_spawn", root, comm, intercomm);
}

void mpidbg_post_MPI_Comm_spawn_multiple(struct mpidbg_cx *cx, int count, char *array_of_commands[],
                                         char **array_of_argv[], const int array_of_maxprocs[],
                                         const MPI_Info array_of_info[], int root, MPI_Comm comm,
                                         MPI_Comm *intercomm, int array_of_errcodes[])
{
    (void)cx, (void)count, (void)array_of_commands, (void)array_of_argv, (void)array_of_maxprocs, (void)array_of_info,
        (void)array_of_errcodes;
    started("MPI_Comm_spawn_multiple", root, comm, intercomm);
}
