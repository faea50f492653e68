// ranks: 3
//
// bug_master_worker_type.c: rank 1 reports the worst cell of its half of
// a grid as a struct {int cell; double value} (a derived datatype), rank
// 2 only its residual as an MPI_DOUBLE, both with tag REPORT. Rank 0
// takes the two reports with MPI_ANY_SOURCE, first into the struct, then
// into a double, because rank 1 is usually faster (rank 2 iterates
// longer). Nothing orders the two sends: when rank 2's residual comes
// first, the struct receive gets a double.
// Breaks MPI-4.1 §3.3.1 under another legal order: the type signatures
// of send and receive must match; with MPI_ANY_SOURCE the message
// matched depends on arrival order (§3.5).
// Expected: message-race at the first MPI_Recv (rank 0), an error: with
// rank 2's message first, element 0 is an MPI_DOUBLE where the receive
// has an MPI_INT.
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

enum { REPORT = 3 };

struct worst {
    int cell;
    double value;
};

int main(int argc, char **argv)
{
    int rank;
    MPI_Datatype t_worst;
    int lens[2] = {1, 1};
    MPI_Aint offs[2] = {offsetof(struct worst, cell), offsetof(struct worst, value)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_create_struct(2, lens, offs, types, &t_worst);
    MPI_Type_commit(&t_worst);

    if (rank == 0) {
        struct worst w = {-1, 0};
        double residual = 0;
        // bug: assumes rank 1's report is the first to arrive
        MPI_Recv(&w, 1, t_worst, MPI_ANY_SOURCE, REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "message-race" "element 0 is MPI_DOUBLE where the receive's datatype has MPI_INT: type mismatch"
        MPI_Recv(&residual, 1, MPI_DOUBLE, MPI_ANY_SOURCE, REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (w.cell < 0 || residual < 0)
            fprintf(stderr, "bug_master_worker_type: worst cell %d (%g), residual %g\n", w.cell, w.value, residual);
    } else if (rank == 1) {
        struct worst w = {17, 0.25};
        MPI_Send(&w, 1, t_worst, 0, REPORT, MPI_COMM_WORLD);
    } else {
        struct timespec longer = {0, 150000000L};
        nanosleep(&longer, NULL);
        double residual = 1e-6;
        MPI_Send(&residual, 1, MPI_DOUBLE, 0, REPORT, MPI_COMM_WORLD);
    }
    MPI_Type_free(&t_worst);
    MPI_Finalize();
    return 0;
}
