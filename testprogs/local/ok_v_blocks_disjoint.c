// ranks: 4
//
// ok_v_blocks_disjoint.c: receive blocks that come close without sharing
// a byte, in the shapes real codes use:
//  - a distributed matrix transpose with MPI_Alltoallv that sends
//    columns (a vector of one double per row, resized to one double) and
//    receives them once as rows and once as columns of a matrix: every
//    receive block then spans the whole matrix, interleaved with the
//    others, and touches only its own column;
//  - MPI_Allgatherv with displacements from an exact prefix sum, blocks
//    back to back, one of them empty (count 0 at a displacement shared
//    with the next block);
//  - MPI_Gatherv at the root with gaps between the blocks and the blocks
//    in reverse order of rank;
//  - MPI_Alltoallw with byte displacements and a different datatype per
//    block.
// Correct: MPI-4.1 §6.5 forbids writing a location twice; only bytes the
// datatypes touch count, and an empty block writes nothing. Expected: no
// findings.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { P = 4, R = 3 }; /* ranks; rows of the matrix each rank owns */

int main(int argc, char **argv)
{
    int rank, size, errors = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != P)
        MPI_Abort(MPI_COMM_WORLD, 2);

    /* transpose: rank r owns rows R*r..R*r+R-1 of a (P*R) x P matrix and
     * receives column r of every rank's rows as a row of P*R doubles */
    double rows[R][P], cols[P * R];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < P; j++)
            rows[i][j] = 100 * (R * rank + i) + j;
    MPI_Datatype col, col1;
    MPI_Type_vector(R, 1, P, MPI_DOUBLE, &col);
    MPI_Type_create_resized(col, 0, sizeof(double), &col1);
    MPI_Type_commit(&col1);
    int sc[P], sd[P], rc[P], rd[P];
    for (int p = 0; p < P; p++) {
        sc[p] = 1;
        sd[p] = p; /* column p of my rows goes to rank p */
        rc[p] = R;
        rd[p] = R * p;
    }
    MPI_Alltoallv(rows, sc, sd, col1, cols, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int k = 0; k < P * R; k++)
        if (cols[k] != 100 * k + rank)
            errors++;

    /* a strided receive: from each rank p its column, as column p of an
     * R x P matrix, so every receive block spans the whole matrix and
     * the blocks interleave without sharing a byte */
    double back[R][P];
    memset(back, 0, sizeof back);
    MPI_Datatype rcol, rcol1;
    MPI_Type_vector(R, 1, P, MPI_DOUBLE, &rcol);
    MPI_Type_create_resized(rcol, 0, sizeof(double), &rcol1);
    MPI_Type_commit(&rcol1);
    int rc1[P], rd1[P];
    for (int p = 0; p < P; p++) {
        rc1[p] = 1;
        rd1[p] = p; /* column p */
    }
    MPI_Alltoallv(rows, sc, sd, col1, back, rc1, rd1, rcol1, MPI_COMM_WORLD);
    for (int i = 0; i < R; i++)
        for (int p = 0; p < P; p++)
            if (back[i][p] != 100 * (R * p + i) + rank)
                errors++;

    /* allgatherv: rank r contributes r doubles (rank 0 none) */
    double mine[P], all[P * (P - 1) / 2 + 1];
    int cnt[P], dsp[P];
    for (int p = 0, at = 0; p < P; p++) {
        cnt[p] = p;
        dsp[p] = at;
        at += p;
    }
    for (int i = 0; i < rank; i++)
        mine[i] = rank;
    MPI_Allgatherv(mine, rank, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int p = 0; p < P; p++)
        for (int i = 0; i < cnt[p]; i++)
            if (all[dsp[p] + i] != p)
                errors++;

    /* gatherv at the root: gaps, reverse order */
    int one[2] = {rank, rank}, got[4 * P], gc[P], gd[P];
    for (int p = 0; p < P; p++) {
        gc[p] = 2;
        gd[p] = 4 * (P - 1 - p) + 1;
    }
    MPI_Gatherv(one, 2, MPI_INT, got, gc, gd, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int p = 0; p < P; p++)
            if (got[gd[p]] != p || got[gd[p] + 1] != p)
                errors++;

    /* alltoallw: an int from rank 0, a double from the others, packed
     * into one byte buffer by byte displacements */
    char wbuf[sizeof(int) + (P - 1) * sizeof(double)];
    int wsc[P], wsd[P], wrc[P], wrd[P];
    MPI_Datatype wst[P], wrt[P];
    double dv = rank;
    int iv = rank;
    for (int p = 0; p < P; p++) {
        wsc[p] = 1;
        wsd[p] = 0;
        wst[p] = rank == 0 ? MPI_INT : MPI_DOUBLE;
        wrc[p] = 1;
        wrt[p] = p == 0 ? MPI_INT : MPI_DOUBLE;
        wrd[p] = p == 0 ? 0 : (int)(sizeof(int) + (size_t)(p - 1) * sizeof(double));
    }
    MPI_Alltoallw(rank == 0 ? (void *)&iv : (void *)&dv, wsc, wsd, wst, wbuf, wrc, wrd, wrt, MPI_COMM_WORLD);
    for (int p = 1; p < P; p++) {
        double v;
        memcpy(&v, wbuf + wrd[p], sizeof v);
        if (v != p)
            errors++;
    }

    MPI_Type_free(&col);
    MPI_Type_free(&col1);
    MPI_Type_free(&rcol);
    MPI_Type_free(&rcol1);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_v_blocks_disjoint: OK\n");
    MPI_Finalize();
    return total != 0;
}
