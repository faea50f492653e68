// ranks: 4
//
// ok_intercomm_reduce_scatter.c: a coupled model, three ocean ranks and
// one atmosphere rank joined by an intercommunicator. Each step the ocean
// group reduces its flux vector into the atmosphere's pieces and back:
// MPI_Reduce_scatter_block, MPI_Reduce_scatter and
// MPI_Ireduce_scatter_block. Each rank keeps the step's record in one
// structure: its recvcounts, the send vector, then the next step's
// vector and the result, packed one after the other. The atmosphere's
// send vector has 6 elements (one group member, 6 of its own), the
// ocean's 6 too (3 members, 2 each); while the nonblocking form is
// pending, the atmosphere fills the next step's vector right after it.
// Follows MPI-4.1 §6.10.1 and §6.10.2: on an intercommunicator each
// process supplies n*recvcount elements (reduce_scatter: the sum of
// recvcounts), "n is the number of processes in the local group", and
// recvcounts has one entry per process of the local group; the result
// is the reduction over the other group's vectors.
// Correct: must produce no findings. A checker that sized these by the
// remote group would see the atmosphere's 6 elements as 18, overlapping
// the result, and read past the end of its one-entry recvcounts.
#include <mpi.h>
#include <stdio.h>

enum { STEPS = 5 };

struct atmos_step {
    int recvcounts[1];
    int flux[6];
    int next_flux[6];
    int result[6];
};

struct ocean_step {
    int recvcounts[3];
    int flux[6];
    int result[2];
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize != 4) {
        if (wrank == 0)
            printf("ok_intercomm_reduce_scatter: needs 4 ranks\n");
        MPI_Finalize();
        return 1;
    }
    int atmos = wrank == wsize - 1;
    MPI_Comm group, coupler;
    MPI_Comm_split(MPI_COMM_WORLD, atmos, wrank, &group);
    MPI_Intercomm_create(group, 0, MPI_COMM_WORLD, atmos ? 0 : wsize - 1, 7, &coupler);
    int lrank, rsize, wrong = 0;
    MPI_Comm_rank(group, &lrank);
    MPI_Comm_remote_size(coupler, &rsize);

    for (int s = 0; s < STEPS; s++) {
        if (atmos) {
            struct atmos_step st = {{6}, {0}, {0}, {0}};
            for (int k = 0; k < 6; k++)
                st.flux[k] = 10 * s + k;
            MPI_Reduce_scatter_block(st.flux, st.result, 6, MPI_INT, MPI_SUM, coupler);
            for (int k = 0; k < 6; k++)
                wrong += st.result[k] != 3 * (100 * s + k); /* the ocean's: 100*s + k from each */
            MPI_Reduce_scatter(st.flux, st.result, st.recvcounts, MPI_INT, MPI_SUM, coupler);
            for (int k = 0; k < 6; k++)
                wrong += st.result[k] != 3 * (100 * s + k + 1);
            MPI_Request r;
            MPI_Ireduce_scatter_block(st.flux, st.result, 6, MPI_INT, MPI_SUM, coupler, &r);
            for (int k = 0; k < 6; k++)
                st.next_flux[k] = 10 * (s + 1) + k;
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            for (int k = 0; k < 6; k++)
                wrong += st.result[k] != 3 * (100 * s + k + 2) || st.next_flux[k] != 10 * (s + 1) + k;
        } else {
            struct ocean_step st = {{2, 2, 2}, {0}, {0}};
            for (int k = 0; k < 6; k++)
                st.flux[k] = 100 * s + k;
            MPI_Reduce_scatter_block(st.flux, st.result, 2, MPI_INT, MPI_SUM, coupler);
            for (int k = 0; k < 2; k++)
                wrong += st.result[k] != rsize * (10 * s + 2 * lrank + k);
            for (int k = 0; k < 6; k++)
                st.flux[k] = 100 * s + k + 1;
            MPI_Reduce_scatter(st.flux, st.result, st.recvcounts, MPI_INT, MPI_SUM, coupler);
            for (int k = 0; k < 2; k++)
                wrong += st.result[k] != 10 * s + 2 * lrank + k;
            for (int k = 0; k < 6; k++)
                st.flux[k] = 100 * s + k + 2;
            MPI_Request r;
            MPI_Ireduce_scatter_block(st.flux, st.result, 2, MPI_INT, MPI_SUM, coupler, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            for (int k = 0; k < 2; k++)
                wrong += st.result[k] != 10 * s + 2 * lrank + k;
        }
    }
    int any;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf(any ? "ok_intercomm_reduce_scatter: FAILED (%d wrong)\n" : "ok_intercomm_reduce_scatter: OK\n", any);
    MPI_Comm_free(&coupler);
    MPI_Comm_free(&group);
    MPI_Finalize();
    return any != 0;
}
