/* A correct program that walks through most of the wrapped API; under
 * the shim it must produce no finding at all. Runs on 2 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "clean: rank %d: %s failed\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void add_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void p2p(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double a[16], b[16];
    for (int i = 0; i < 16; i++)
        a[i] = rank * 100 + i;
    MPI_Sendrecv(a, 16, MPI_DOUBLE, next, 1, b, 16, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(b[3] == prev * 100 + 3, "sendrecv");
    MPI_Sendrecv_replace(a, 16, MPI_DOUBLE, next, 2, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(a, 4, MPI_DOUBLE, MPI_PROC_NULL, 0, b, 4, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);

    /* nonblocking, every completion call */
    MPI_Request r[4];
    int x[4] = {rank, rank, rank, rank}, y[4];
    MPI_Irecv(&y[0], 1, MPI_INT, prev, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&y[1], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&x[0], 1, MPI_INT, next, 3, MPI_COMM_WORLD, &r[2]);
    MPI_Issend(&x[0], 1, MPI_INT, next, 4, MPI_COMM_WORLD, &r[3]); /* same buffer: two reads are fine */
    int idx, flag = 0, outcount, indices[4];
    MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE);
    MPI_Waitsome(4, r, &outcount, indices, MPI_STATUSES_IGNORE);
    while (!flag)
        MPI_Testall(4, r, &flag, MPI_STATUSES_IGNORE);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE); /* all MPI_REQUEST_NULL now */
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    /* persistent requests, started twice */
    MPI_Request p[2];
    MPI_Recv_init(y, 2, MPI_INT, prev, 5, MPI_COMM_WORLD, &p[0]);
    MPI_Send_init(x, 2, MPI_INT, next, 5, MPI_COMM_WORLD, &p[1]);
    for (int k = 0; k < 2; k++) {
        MPI_Startall(2, p);
        MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
    }
    MPI_Start(&p[0]);
    MPI_Start(&p[1]);
    MPI_Wait(&p[0], MPI_STATUS_IGNORE);
    MPI_Wait(&p[1], MPI_STATUS_IGNORE);
    MPI_Wait(&p[1], MPI_STATUS_IGNORE); /* an inactive persistent request: returns at once */
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);

    /* probes and matched probes */
    MPI_Send(x, 3, MPI_INT, next, 6, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Probe(prev, 6, MPI_COMM_WORLD, &st);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    check(n == 3, "probe count");
    MPI_Message m;
    MPI_Mprobe(prev, 6, MPI_COMM_WORLD, &m, &st);
    MPI_Mrecv(y, 3, MPI_INT, &m, MPI_STATUS_IGNORE);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);

    /* a request tested until done, and one freed while active */
    MPI_Request t;
    MPI_Irecv(y, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &t);
    MPI_Send(x, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
    flag = 0;
    while (!flag)
        MPI_Test(&t, &flag, MPI_STATUS_IGNORE);
    MPI_Isend(x, 1, MPI_INT, next, 8, MPI_COMM_WORLD, &t);
    MPI_Request_free(&t);
    MPI_Recv(y, 1, MPI_INT, prev, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void collectives(void)
{
    int *s = malloc(sizeof(int) * 4 * size), *r = malloc(sizeof(int) * 4 * size);
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
    for (int i = 0; i < 4 * size; i++)
        s[i] = rank;
    for (int i = 0; i < size; i++) {
        counts[i] = 2;
        displs[i] = 4 * i;
        types[i] = MPI_INT;
    }
    MPI_Bcast(s, 4, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(s, 2, MPI_INT, r, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(rank == 0 ? MPI_IN_PLACE : s, 2, MPI_INT, r, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(s, 2, MPI_INT, r, counts, displs, MPI_INT, size - 1, MPI_COMM_WORLD);
    MPI_Scatter(s, 2, MPI_INT, r, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(s, 2, MPI_INT, rank == 0 ? MPI_IN_PLACE : r, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatterv(s, counts, displs, MPI_INT, r, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgather(s, 2, MPI_INT, r, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgatherv(s, 2, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(s, 2, MPI_INT, r, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
    int *bd = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++)
        bd[i] = displs[i] * (int)sizeof(int);
    MPI_Alltoallw(s, counts, bd, types, r, counts, bd, types, MPI_COMM_WORLD);
    MPI_Reduce(s, r, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : s, s, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(s, r, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, r, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(s, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(s, r, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(s, r, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(MPI_IN_PLACE, r, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_local(s, r, 4, MPI_INT, MPI_SUM);

    /* a user operation, and MINLOC on a pair type */
    MPI_Op op;
    MPI_Op_create(add_op, 1, &op);
    MPI_Allreduce(s, r, 4, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    struct {
        double v;
        int i;
    } in = {rank, rank}, out;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);

    /* nonblocking: disjoint buffers in flight together */
    MPI_Request q[4];
    MPI_Ibcast(s, 1, MPI_INT, 0, MPI_COMM_WORLD, &q[0]);
    MPI_Iallreduce(s + 1, r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]);
    MPI_Iallgather(s + 2, 1, MPI_INT, r + 1, 1, MPI_INT, MPI_COMM_WORLD, &q[2]);
    MPI_Ibarrier(MPI_COMM_WORLD, &q[3]);
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    MPI_Ialltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Igatherv(s, 2, MPI_INT, r, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);

    free(s);
    free(r);
    free(counts);
    free(displs);
    free(types);
    free(bd);
}

static void datatypes(void)
{
    MPI_Datatype v, hv, idx, hidx, ib, hib, st, sub, dar, res, dup, c;
    int bl[3] = {1, 2, 1}, di[3] = {0, 3, 7};
    MPI_Aint da[3] = {0, 16, 40};
    MPI_Type_contiguous(3, MPI_INT, &c);
    MPI_Type_vector(2, 3, 5, MPI_CHAR, &v);
    MPI_Type_set_name(v, "vec");
    MPI_Type_create_hvector(2, 1, 24, MPI_DOUBLE, &hv);
    MPI_Type_indexed(3, bl, di, MPI_INT, &idx);
    MPI_Type_create_hindexed(3, bl, da, MPI_INT, &hidx);
    MPI_Type_create_indexed_block(3, 1, di, MPI_INT, &ib);
    MPI_Type_create_hindexed_block(3, 1, da, MPI_DOUBLE, &hib);
    MPI_Datatype ts[3] = {MPI_INT, v, MPI_DOUBLE};
    MPI_Type_create_struct(3, bl, da, ts, &st);
    int sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
    int gs[2] = {8, 8}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2},
        ps[2] = {1, 1};
    MPI_Type_create_darray(1, 0, 2, gs, dist, dargs, ps, MPI_ORDER_FORTRAN, MPI_INT, &dar);
    MPI_Type_create_resized(c, 0, 16, &res);
    MPI_Type_commit(&st);
    MPI_Type_dup(st, &dup); /* committed, as st is */
    MPI_Datatype all[] = {c, v, hv, idx, hidx, ib, hib, sub, dar, res};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
        MPI_Type_commit(&all[i]);
    int sz;
    MPI_Aint lb, ext;
    MPI_Type_size(st, &sz);
    MPI_Type_get_extent(st, &lb, &ext);
    MPI_Type_get_true_extent(v, &lb, &ext); /* queries need no commit */

    char *buf = calloc(1, 4096), *rbuf = calloc(1, 4096);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Sendrecv(buf, 2, st, next, 0, rbuf, 2, dup, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(buf, 1, sub, next, 0, rbuf, 1, sub, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(buf, 3, res, next, 0, rbuf, 3, res, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    /* MPI_BOTTOM with absolute addresses */
    int xs[2] = {1, 2}, ys[2];
    MPI_Aint ax[2];
    MPI_Get_address(&xs[0], &ax[0]);
    MPI_Get_address(&xs[1], &ax[1]);
    int one[2] = {1, 1};
    MPI_Datatype abs_t, abs_r;
    MPI_Type_create_hindexed(2, one, ax, MPI_INT, &abs_t);
    MPI_Get_address(&ys[0], &ax[0]);
    MPI_Get_address(&ys[1], &ax[1]);
    MPI_Type_create_hindexed(2, one, ax, MPI_INT, &abs_r);
    MPI_Type_commit(&abs_t);
    MPI_Type_commit(&abs_r);
    MPI_Sendrecv(MPI_BOTTOM, 1, abs_t, next, 9, MPI_BOTTOM, 1, abs_r, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(ys[1] == 2, "bottom");

    /* contents hand out references the program frees */
    int ni, na, nt, comb;
    MPI_Type_get_envelope(st, &ni, &na, &nt, &comb);
    int *ci = malloc(sizeof(int) * ni);
    MPI_Aint *ca = malloc(sizeof(MPI_Aint) * na);
    MPI_Datatype *ct = malloc(sizeof(MPI_Datatype) * nt);
    MPI_Type_get_contents(st, ni, na, nt, ci, ca, ct);
    for (int i = 0; i < nt; i++) {
        int a, b, cc, k;
        MPI_Type_get_envelope(ct[i], &a, &b, &cc, &k);
        if (k != MPI_COMBINER_NAMED)
            MPI_Type_free(&ct[i]);
    }
    free(ci);
    free(ca);
    free(ct);

    /* pack and unpack */
    int pos = 0, psz;
    MPI_Pack_size(2, st, MPI_COMM_WORLD, &psz);
    char *packed = malloc(psz);
    MPI_Pack(buf, 2, st, packed, psz, &pos, MPI_COMM_WORLD);
    pos = 0;
    MPI_Unpack(packed, psz, &pos, rbuf, 2, st, MPI_COMM_WORLD);
    free(packed);

    /* predefined types from size and Fortran kinds */
    MPI_Datatype ms;
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &ms);
    double d = rank;
    MPI_Allreduce(MPI_IN_PLACE, &d, 1, ms, MPI_SUM, MPI_COMM_WORLD);

    MPI_Datatype frees[] = {c, v, hv, idx, hidx, ib, hib, st, sub, dar, res, dup, abs_t, abs_r};
    for (unsigned i = 0; i < sizeof frees / sizeof frees[0]; i++)
        MPI_Type_free(&frees[i]);
    free(buf);
    free(rbuf);
}

static void communicators(void)
{
    MPI_Comm dup, split, created, cart, inter, merged, idup, graph;
    MPI_Group world, evens, g2, un;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_name(dup, "dup");
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_group(MPI_COMM_WORLD, &g2); /* MPICH hands out the same group again */
    int zero = 0;
    MPI_Group_incl(world, 1, &zero, &evens);
    MPI_Group_union(world, evens, &un);
    MPI_Comm_create(MPI_COMM_WORLD, evens, &created);
    if (created != MPI_COMM_NULL)
        MPI_Comm_free(&created);
    MPI_Request ir;
    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &ir);
    MPI_Wait(&ir, MPI_STATUS_IGNORE);
    MPI_Barrier(idup);

    /* a ring, and neighbourhood collectives on it */
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    int src, dst, sb[2] = {rank, rank}, rb[2];
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    MPI_Neighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, cart);
    MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, cart);
    int cnt[2] = {1, 1}, dsp[2] = {0, 1};
    MPI_Neighbor_alltoallv(sb, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, cart);
    MPI_Request nr;
    MPI_Ineighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, cart, &nr);
    MPI_Wait(&nr, MPI_STATUS_IGNORE);
    int *index = malloc(sizeof(int) * size), *edges = malloc(sizeof(int) * 2 * size);
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + 1) % size;
        edges[2 * i + 1] = (i + size - 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    MPI_Neighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, graph);
    free(index);
    free(edges);

    /* an intercommunicator between the two halves of split */
    int color = rank % 2;
    MPI_Intercomm_create(split, 0, MPI_COMM_WORLD, color ? 0 : 1, 42, &inter);
    int x = rank, y = -1;
    MPI_Bcast(&x, 1, MPI_INT, color == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter);
    MPI_Intercomm_merge(inter, color, &merged);

    MPI_Comm frees[] = {dup, split, cart, inter, merged, idup, graph};
    for (unsigned i = 0; i < sizeof frees / sizeof frees[0]; i++)
        MPI_Comm_free(&frees[i]);
    MPI_Group_free(&world);
    MPI_Group_free(&g2);
    MPI_Group_free(&evens);
    MPI_Group_free(&un);
}

static void rma(void)
{
    int *base;
    MPI_Win win, win2;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    int next = (rank + 1) % size, v = rank, got = -1, res[3];
    MPI_Win_fence(0, win);
    MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win);
    MPI_Accumulate(&v, 1, MPI_INT, next, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Get(&got, 1, MPI_INT, next, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    /* one result buffer each: results of operations in flight together
     * must not share bytes (MPI-4.1 §12.3) */
    MPI_Fetch_and_op(&v, &res[0], MPI_INT, next, 2, MPI_SUM, win);
    MPI_Compare_and_swap(&v, &got, &res[1], MPI_INT, next, 3, win);
    MPI_Get_accumulate(&v, 1, MPI_INT, &res[2], 1, MPI_INT, next, 1, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Win_flush(next, win);
    MPI_Win_unlock(next, win);
    MPI_Win_lock_all(0, win);
    MPI_Request rq[2];
    int v2 = 5, g2;
    MPI_Rput(&v2, 1, MPI_INT, next, 0, 1, MPI_INT, win, &rq[0]);
    MPI_Rget(&g2, 1, MPI_INT, next, 1, 1, MPI_INT, win, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Group g;
    MPI_Win_get_group(win, &g);
    MPI_Group_free(&g);
    MPI_Win_free(&win);

    int local[4];
    MPI_Win_create(local, sizeof local, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win2);
    MPI_Win_fence(0, win2);
    MPI_Win_fence(0, win2);
    MPI_Win_free(&win2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    p2p();
    collectives();
    datatypes();
    communicators();
    rma();
    MPI_Finalize();
    if (rank == 0)
        printf("clean: done\n");
    return 0;
}
