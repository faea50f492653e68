// ranks: 3
// native: hangs
//
// bug_deadlock_intercomm_root.c: a coupled code. The even ranks run the
// solver, the odd ones the monitor; an intercommunicator joins the two.
// The solver ranks gather the monitor's load figures to their rank 1,
// which passes MPI_ROOT (the others MPI_PROC_NULL), but the monitor names
// remote rank 0 as the root. Then the solver's rank 1 broadcasts a
// setting to the monitor and both sides sum over the other's ranks.
// Breaks MPI-4.1 §6.2.2 (an intercommunicator's rooted collective: the
// root argument in the other group is the root's rank in the root's
// group): the monitor's contribution goes to a rank that takes none.
// Expected: every rank waits in a different collective on the
// intercommunicator (the solver's rank 1 in MPI_Gather for the monitor,
// the monitor in MPI_Bcast for that rank, the solver's rank 0 in
// MPI_Allreduce for the monitor): a deadlock, reported at rank 0's
// MPI_Allreduce with the other two calls related, and the job ended. (The
// collectives' agreement does not cover intercommunicators, so no
// collective-root-mismatch comes first.)
//
// Natively MPICH and Open MPI hang.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, lrank, load, loads[8] = {0}, setting = 0, total = 0;
    MPI_Comm side, coupler;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int monitor = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, monitor, rank, &side);
    MPI_Comm_rank(side, &lrank);
    MPI_Intercomm_create(side, 0, MPI_COMM_WORLD, monitor ? 0 : 1, 17, &coupler);

    load = 10 + rank;
    if (monitor)
        MPI_Gather(&load, 1, MPI_INT, NULL, 0, MPI_INT, 0, coupler); // bug: the solver's root is its rank 1
    else
        MPI_Gather(NULL, 0, MPI_INT, loads, 1, MPI_INT, lrank == 1 ? MPI_ROOT : MPI_PROC_NULL, coupler); // related "deadlock"

    if (monitor) {
        MPI_Bcast(&setting, 1, MPI_INT, 1, coupler); // related "deadlock"
    } else {
        setting = lrank == 1 ? 42 : 0;
        MPI_Bcast(&setting, 1, MPI_INT, lrank == 1 ? MPI_ROOT : MPI_PROC_NULL, coupler);
    }
    MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, coupler); // want "deadlock"
    printf("rank %d: setting %d, the other side's ranks sum to %d, first load %d\n", rank, setting, total, loads[0]);

    MPI_Comm_free(&coupler);
    MPI_Comm_free(&side);
    MPI_Finalize();
    return 0;
}
