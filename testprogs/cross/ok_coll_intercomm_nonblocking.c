// ranks: 4
//
// ok_coll_intercomm_nonblocking.c: a manager group (even world ranks) and
// a worker group (odd world ranks) joined by an intercommunicator. Each
// round the managers' leader broadcasts the round's parameters to every
// worker with MPI_Ibcast (MPI_ROOT at the leader, MPI_PROC_NULL at the
// other managers, the leader's rank in the remote group at the workers),
// overlapped with local work; the workers' results come back with
// MPI_Iallreduce over the intercommunicator (each group gets the other
// group's sum); MPI_Ibarrier ends the round. Before the rounds the
// intercommunicator is duplicated with MPI_Comm_idup, and the rounds run
// on the duplicate.
// Follows MPI-4.1 §6.2.3 (root arguments of rooted collectives on an
// intercommunicator), §6.12 (nonblocking collectives, on
// intercommunicators too) and §7.4.2 (MPI_Comm_idup).
// Correct: must produce no findings; every rank checks what it got.
#include <mpi.h>
#include <stdio.h>

enum { ROUNDS = 5 };

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int manager = rank % 2 == 0;
    MPI_Comm local, inter, dup;
    MPI_Comm_split(MPI_COMM_WORLD, manager ? 0 : 1, rank, &local);
    /* the other group's leader: world rank 1 for the managers, 0 for the workers */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, manager ? 1 : 0, 7, &inter);
    MPI_Request r;
    MPI_Comm_idup(inter, &dup, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int lrank, nworkers, nmanagers;
    MPI_Comm_rank(dup, &lrank);
    if (manager) {
        MPI_Comm_remote_size(dup, &nworkers);
        MPI_Comm_size(local, &nmanagers);
    } else {
        MPI_Comm_size(local, &nworkers);
        MPI_Comm_remote_size(dup, &nmanagers);
    }
    for (int round = 1; round <= ROUNDS; round++) {
        double params[2] = {0, 0};
        if (manager && lrank == 0) {
            params[0] = round;
            params[1] = 0.5 * round;
        }
        int root = manager ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_Ibcast(params, 2, MPI_DOUBLE, root, dup, &r);
        double busy = 0;
        for (int i = 0; i < 10000; i++)
            busy += i * 1e-9;
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (!manager && (params[0] != round || params[1] != 0.5 * round))
            errors++;
        /* each group contributes; each gets the other group's sum */
        double mine = manager ? 0 : params[0] * (lrank + 1) + busy * 0, theirs = -1;
        MPI_Iallreduce(&mine, &theirs, 1, MPI_DOUBLE, MPI_SUM, dup, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        double want = manager ? round * nworkers * (nworkers + 1) / 2.0 : 0;
        if (theirs != want)
            errors++;
        MPI_Ibarrier(dup, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ok_coll_intercomm_nonblocking: OK\n");
    (void)nmanagers;
    (void)size;
    MPI_Finalize();
    return all != 0;
}
