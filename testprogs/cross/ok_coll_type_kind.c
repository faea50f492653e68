// ranks: 3
//
// ok_coll_type_kind.c: the correct twin of bug_coll_type_kind.c. Rank 0
// broadcasts the schedule as 4 MPI_DOUBLEs; the other ranks receive it
// as one element of a contiguous datatype of 4 MPI_DOUBLEs: a different
// datatype with the same type signature, which MPI-4.1 §6.1 allows. The
// step count goes as MPI_LONG on every rank. Every value is checked.
// Correct: must produce no findings.
#include <mpi.h>
#include <stdio.h>

struct schedule {
    long nsteps;
    double out_at[4];
};

int main(int argc, char **argv)
{
    int rank;
    struct schedule s = {0, {0}};
    MPI_Datatype four;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(4, MPI_DOUBLE, &four);
    MPI_Type_commit(&four);
    if (rank == 0) {
        s.nsteps = 100;
        for (int i = 0; i < 4; i++)
            s.out_at[i] = 0.25 * (i + 1);
    }
    MPI_Bcast(&s.nsteps, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Bcast(s.out_at, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(s.out_at, 1, four, 0, MPI_COMM_WORLD);

    int written = 0;
    for (long step = 1; step <= s.nsteps; step++)
        for (int i = 0; i < 4; i++)
            if (step * 4 == s.nsteps * (i + 1))
                written++;
    int total = 0, errors = s.nsteps != 100;
    for (int i = 0; i < 4; i++)
        errors += s.out_at[i] != 0.25 * (i + 1);
    MPI_Reduce(&written, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Type_free(&four);
    if (rank == 0)
        printf(errors == 0 && total == 12 ? "ok_coll_type_kind: OK\n" : "ok_coll_type_kind: FAILED\n");
    MPI_Finalize();
    return 0;
}
