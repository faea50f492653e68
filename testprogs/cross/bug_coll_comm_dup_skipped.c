// ranks: 3
// native: hangs
//
// bug_coll_comm_dup_skipped.c: a solver library duplicates the caller's
// communicator in its set-up (as libraries should, for a private
// message space), but the application calls the set-up only on the ranks
// that own part of the mesh. The last rank owns none: it skips the
// set-up and goes straight to the global residual reduction.
// Breaks MPI-4.1 §7.4.2: MPI_COMM_DUP is collective over the group of
// comm, so every rank must call it, in the same order as the other
// collectives on comm (§6.1).
// Expected: collective-mismatch at rank 0's MPI_Comm_dup, with rank 2's
// MPI_Allreduce as a related line, and deadlock at rank 0's MPI_Comm_dup
// (the lowest rank of the deadlock; the job then ends).
//
// Natively MPICH and Open MPI hang or fail inside MPI_Comm_dup, whose
// own agreement on a context id meets rank 2's reduction.
#include <mpi.h>
#include <stdio.h>

struct solver {
    MPI_Comm comm; // the library's own duplicate
    int ncells;
};

static void solver_setup(struct solver *s, MPI_Comm comm, int ncells)
{
    MPI_Comm_dup(comm, &s->comm); // want "collective-mismatch" "deadlock"
    s->ncells = ncells;
}

static double solver_residual(const struct solver *s)
{
    double local = 1e-3 * s->ncells, global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, s->comm);
    return global;
}

int main(int argc, char **argv)
{
    int rank, size;
    struct solver s = {MPI_COMM_NULL, 0};
    double res = 0, mine = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int ncells = rank == size - 1 ? 0 : 1000 * (rank + 1);
    if (ncells > 0) { // bug: the set-up is collective, every rank must call it
        solver_setup(&s, MPI_COMM_WORLD, ncells);
        res = solver_residual(&s);
    }
    MPI_Allreduce(&res, &mine, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); // related "collective-mismatch"
    if (rank == 0)
        printf("residual %g\n", mine);
    if (s.comm != MPI_COMM_NULL)
        MPI_Comm_free(&s.comm);
    MPI_Finalize();
    return 0;
}
