/*
 * How the shim waits for its own collectives: without holding a
 * processor that the ranks it waits for need.
 *
 * When a job's ranks outnumber its cores (a laptop, a CI machine, a
 * 256-rank test on two cores), a rank that spins inside MPICH's
 * blocking collective keeps its core until the scheduler takes it away,
 * and the ranks it waits for run only then: every collective costs a
 * scheduling round per rank. The program's own collectives are the
 * program's business; the shim's (the shadow duplicates, the node
 * segment's set-up, the agreement at communicator creation, the count
 * at MPI_Finalize) give their core away while they wait: a test, and
 * sched_yield between tests. On a machine with a core per rank
 * sched_yield returns at once and costs a system call per test.
 *
 * Open MPI's blocking wait already yields when the job oversubscribes
 * the node (its mpi_yield_when_idle), and measured no slower than the
 * loop at 8 ranks, faster at 64 (docs/DESIGN-SCALE.md): it is used as
 * it is.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "shim.h"

int mpidbg_xr_wait(MPI_Request *r)
{
#ifdef OPEN_MPI
    return PMPI_Wait(r, MPI_STATUS_IGNORE);
#else
    int done = 0, rc = MPI_SUCCESS;
    for (unsigned spins = 0;; spins++) {
        rc = PMPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        /* a few tests first: a collective among ranks that all run
         * completes in microseconds */
        if (spins >= 64)
            sched_yield();
    }
#endif
}
