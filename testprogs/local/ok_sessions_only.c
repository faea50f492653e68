// ranks: 2
// mpi: 4 (the sessions model is MPI-4.0)
//
// ok_sessions_only.c: a library-style solver that never calls MPI_Init.
// It opens a session, makes its communicator from the mpi://WORLD
// process set, sums each rank's share of a dot product with
// MPI_Allreduce, frees what it made and finalizes the session. A second
// session, opened and finalized inside the first, stands for another
// library in the same process.
// Follows MPI-4.1 §11.3 (the sessions model: MPI_Session_init,
// MPI_Group_from_session_pset, MPI_Comm_create_from_group,
// MPI_Session_finalize; MPI_Init is never needed). Correct: must produce
// no findings and end as natively. mpidbg checks from MPI_Init on, so the
// run says in a note that these ranks were not checked, instead of
// failing as though the program were not an MPI program.
#include <mpi.h>
#include <stdio.h>

enum { N = 1000 };

static int other_library(void)
{
    MPI_Session s;
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS)
        return 1;
    return MPI_Session_finalize(&s) != MPI_SUCCESS;
}

int main(void)
{
    MPI_Session session;
    MPI_Group world;
    MPI_Comm comm;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session);
    MPI_Group_from_session_pset(session, "mpi://WORLD", &world);
    MPI_Comm_create_from_group(world, "org.example.solver", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int bad = other_library();

    double local = 0, dot = 0;
    for (int i = rank; i < N; i += size)
        local += (double)i * i;
    MPI_Allreduce(&local, &dot, 1, MPI_DOUBLE, MPI_SUM, comm);
    double want = (double)(N - 1) * N * (2 * N - 1) / 6;
    bad |= dot != want;
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, comm);
    if (rank == 0)
        printf(any ? "ok_sessions_only: FAILED\n" : "ok_sessions_only: OK\n");
    MPI_Comm_free(&comm);
    MPI_Group_free(&world);
    MPI_Session_finalize(&session);
    return any;
}
