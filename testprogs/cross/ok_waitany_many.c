// ranks: 3
//
// ok_waitany_many.c: a collector completes hundreds of requests one at a
// time, as servers and progress loops do (MPI-4.1 §3.7.5: MPI_Waitany and
// MPI_Testany complete one active request of the array and set its
// handle to MPI_REQUEST_NULL, or leave a persistent one inactive).
// - Phase 1: 300 receives from two workers, completed with MPI_Waitany;
//   each of 40 slots is posted again, once, for a bonus item when it completes,
//   every 50th completion also waits for one slot directly with MPI_Wait,
//   and 4 slots receive from MPI_PROC_NULL.
// - Phase 2: 128 persistent receives started with MPI_Startall and
//   polled with MPI_Testany between bits of work, three rounds.
// - Phase 3: 96 receives, every other one on a duplicate communicator,
//   completed with MPI_Waitany.
// Every message is received once with its own type: no finding.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 300, BONUS = 40, NP = 128, ROUNDS = 3, TAG_P = 1000, NTWO = 96 };

static long expect_sum(int n, int rank)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += rank * 100000 + i;
    return s;
}

int main(int argc, char **argv)
{
    int rank, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        int *buf = malloc(sizeof *buf * N);
        MPI_Request *r = malloc(sizeof *r * N);
        int from[N], next[3] = {0, 0, 0}, again[N] = {0};
        long sum = 0;
        int got = 0, want = N - 4 + BONUS, posted_bonus = 0;
        for (int i = 0; i < N; i++) {
            from[i] = i < 4 ? MPI_PROC_NULL : 1 + i % 2;
            int tag = from[i] == MPI_PROC_NULL ? 0 : next[from[i]]++;
            MPI_Irecv(&buf[i], 1, MPI_INT, from[i], tag, MPI_COMM_WORLD, &r[i]);
        }
        int done = 0;
        while (got < want) {
            int idx;
            MPI_Status st;
            MPI_Waitany(N, r, &idx, &st);
            if (idx == MPI_UNDEFINED)
                break;
            done++;
            if (from[idx] == MPI_PROC_NULL)
                continue;
            sum += buf[idx];
            got++;
            if (posted_bonus < BONUS && idx < 4 + BONUS && !again[idx]) {
                again[idx] = 1;
                MPI_Irecv(&buf[idx], 1, MPI_INT, from[idx], next[from[idx]]++, MPI_COMM_WORLD, &r[idx]);
                posted_bonus++;
            }
            if (done % 50 == 0) {
                for (int k = N - 1; k >= 0; k--)
                    if (r[k] != MPI_REQUEST_NULL) {
                        MPI_Wait(&r[k], &st);
                        sum += buf[k];
                        got++;
                        break;
                    }
            }
        }
        if (sum != expect_sum(next[1], 1) + expect_sum(next[2], 2))
            ok = 0;

        int pbuf[NP];
        MPI_Request p[NP];
        for (int i = 0; i < NP; i++)
            MPI_Recv_init(&pbuf[i], 1, MPI_INT, 1 + i % 2, TAG_P + i, MPI_COMM_WORLD, &p[i]);
        for (int round = 0; round < ROUNDS; round++) {
            MPI_Startall(NP, p);
            MPI_Barrier(MPI_COMM_WORLD);
            long psum = 0, want_p = 0;
            volatile double work = 0;
            for (int n = 0; n < NP;) {
                int idx, flag;
                MPI_Testany(NP, p, &idx, &flag, MPI_STATUS_IGNORE);
                if (flag && idx != MPI_UNDEFINED) {
                    psum += pbuf[idx];
                    n++;
                } else {
                    for (int w = 0; w < 100; w++)
                        work += w * 0.5;
                }
            }
            for (int i = 0; i < NP; i++)
                want_p += round * 1000 + i;
            if (psum != want_p)
                ok = 0;
        }
        for (int i = 0; i < NP; i++)
            MPI_Request_free(&p[i]);

        /* phase 3: receives on two communicators in one array */
        int two[NTWO];
        MPI_Request t[NTWO];
        for (int i = 0; i < NTWO; i++)
            MPI_Irecv(&two[i], 1, MPI_INT, 1, TAG_P + NP + i, i % 2 ? dup : MPI_COMM_WORLD, &t[i]);
        long tsum = 0;
        for (int n = 0; n < NTWO; n++) {
            int idx;
            MPI_Waitany(NTWO, t, &idx, MPI_STATUS_IGNORE);
            tsum += two[idx];
        }
        if (tsum != (long)NTWO * (NTWO - 1) / 2)
            ok = 0;
        free(buf);
        free(r);
    } else if (rank <= 2) {
        int items = (N - 4) / 2 + BONUS / 2;
        for (int i = 0; i < items; i++) {
            int v = rank * 100000 + i;
            MPI_Send(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
        }
        for (int round = 0; round < ROUNDS; round++) {
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = rank - 1; i < NP; i += 2) {
                int v = round * 1000 + i;
                MPI_Send(&v, 1, MPI_INT, 0, TAG_P + i, MPI_COMM_WORLD);
            }
        }
        if (rank == 1)
            for (int i = 0; i < NTWO; i++)
                MPI_Send(&i, 1, MPI_INT, 0, TAG_P + NP + i, i % 2 ? dup : MPI_COMM_WORLD);
    } else {
        for (int round = 0; round < ROUNDS; round++)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm_free(&dup);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf(ok ? "ok_waitany_many: OK\n" : "ok_waitany_many: WRONG DATA\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
