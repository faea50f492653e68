// ranks: 2
//
// bug_invalid_color.c: ranks are put into teams with MPI_Comm_split; the
// team comes from the command line, and -1 stands for "no team". Run
// without arguments, every rank passes -1 as the colour, which is neither
// a colour nor MPI_UNDEFINED (what "no team" needed). Erroneous by
// MPI-4.1 §7.4.2: the colour must be non-negative or MPI_UNDEFINED. MPICH
// 4.0 takes -1 silently and puts the ranks in one team; Open MPI 4.1
// refuses it with MPI_ERR_ARG, which MPI_ERRORS_RETURN hands back (with
// some ranks at -1 and others not, it hangs). Either way the program goes
// on without a team.
// Expected: invalid-color at the MPI_Comm_split (every rank).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, team = -1; // bug: MPI_UNDEFINED is "no team"
    MPI_Comm members = MPI_COMM_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1)
        team = atoi(argv[1]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_split(MPI_COMM_WORLD, team, rank, &members); // want "invalid-color" "color -1 is negative and not MPI_UNDEFINED"
    if (rc == MPI_SUCCESS && members != MPI_COMM_NULL) {
        int n = 0;
        MPI_Allreduce(&rank, &n, 1, MPI_INT, MPI_SUM, members);
        MPI_Comm_free(&members);
    }
    MPI_Finalize();
    return 0;
}
