/* Planted errors for the shim's own tests, one case per run:
 *     bugs CASE
 * The errors are ones MPICH either does not notice or reports through
 * MPI_ERRORS_RETURN, so each case runs to MPI_Finalize. (The planted-bug
 * suite proper is testprogs/.) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size, argc_lost;

/* s_type of examples/s_type.expr:
 * struct([1,5,7,2,1], [-4,0,47,76,100], [LB,INT,CHAR,DOUBLE,UB])
 * Open MPI 4 no longer defines MPI_LB, MPI_UB and MPI_Type_struct
 * (MPI-3.0 removed them): there the same layout and bounds are
 * resized(-4,104,struct([5,7,2],[0,47,76],[INT,CHAR,DOUBLE])). */
#ifdef OPEN_MPI
static MPI_Datatype s_type(void)
{
    int bl[3] = {5, 7, 2};
    MPI_Aint d[3] = {0, 47, 76};
    MPI_Datatype ts[3] = {MPI_INT, MPI_CHAR, MPI_DOUBLE};
    MPI_Datatype s, t;
    MPI_Type_create_struct(3, bl, d, ts, &s);
    MPI_Type_create_resized(s, -4, 104, &t);
    MPI_Type_free(&s);
    MPI_Type_set_name(t, "s_type");
    MPI_Type_commit(&t);
    return t;
}
#else
static MPI_Datatype s_type(void)
{
    int bl[5] = {1, 5, 7, 2, 1};
    MPI_Aint d[5] = {-4, 0, 47, 76, 100};
    MPI_Datatype ts[5] = {MPI_LB, MPI_INT, MPI_CHAR, MPI_DOUBLE, MPI_UB};
    MPI_Datatype t;
    MPI_Type_struct(5, bl, d, ts, &t);
    MPI_Type_set_name(t, "s_type");
    MPI_Type_commit(&t);
    return t;
}
#endif

static int overlap_path(void)
{
    /* a receive into byte 52 is pending; a second receive of s_type over
     * the same buffer writes element [2][5] (CHAR, at 47 + 5) again */
    static char buf[256];
    MPI_Datatype t = s_type();
    MPI_Request r[2];
    int peer = rank ^ 1;
    MPI_Irecv(buf + 52, 1, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(buf, 1, t, peer, 2, MPI_COMM_WORLD, &r[1]); /* want buffer-overlap */
    static char out[256];
    MPI_Send(out, 1, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    MPI_Send(out, 1, t, peer, 2, MPI_COMM_WORLD);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Type_free(&t);
    return 0;
}

static int uncommitted(void)
{
    char buf[64] = {0};
    MPI_Datatype vec;
    MPI_Type_vector(2, 3, 5, MPI_CHAR, &vec);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0)
        MPI_Send(buf, 1, vec, 1, 0, MPI_COMM_WORLD); /* want type-not-committed */
    MPI_Type_free(&vec);
    return 0;
}

static int leaks(void)
{
    /* three types from one place, a communicator, a group, a persistent
     * request, and an Irecv never completed */
    MPI_Datatype t[3];
    for (int i = 0; i < 3; i++)
        MPI_Type_contiguous(i + 1, MPI_INT, &t[i]); /* want leak-type (3) */
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c); /* want leak-comm */
    MPI_Group g;
    MPI_Comm_group(MPI_COMM_WORLD, &g); /* want leak-group */
    MPI_Request p, r;
    static int x;
    MPI_Send_init(&x, 1, MPI_INT, rank ^ 1, 3, MPI_COMM_WORLD, &p); /* want leak-request */
    MPI_Irecv(&x, 1, MPI_INT, rank ^ 1, 99, MPI_COMM_WORLD, &r);   /* want request-never-completed */
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

static int registry_case(void)
{
    /* objects for a debugger to find in the registry while the rank is
     * stopped at the type-not-committed finding */
    MPI_Datatype s = s_type(), halo;
    MPI_Type_contiguous(6, s, &halo);
    MPI_Type_set_name(halo, "halo");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_name(dup, "dup");
    static char buf[1024], out[1024];
    MPI_Request r;
    MPI_Irecv(buf, 1, s, rank ^ 1, 5, dup, &r);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0)
        MPI_Send(out, 1, halo, 1, 0, MPI_COMM_WORLD); /* want type-not-committed */
    MPI_Send(out, 1, s, rank ^ 1, 5, dup);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Type_free(&halo);
    MPI_Type_free(&s);
    MPI_Comm_free(&dup);
    return 0;
}

static int reqcopy(void)
{
    /* correct: one request variable, its handle copied out before the
     * next operation reuses it; then a real loss of one */
    static int in[4], out[4];
    MPI_Request tmp, reqs[4];
    for (int i = 0; i < 4; i++) {
        MPI_Irecv(&in[i], 1, MPI_INT, rank ^ 1, i, MPI_COMM_WORLD, &tmp);
        reqs[i] = tmp;
    }
    for (int i = 0; i < 4; i++)
        MPI_Send(&out[i], 1, MPI_INT, rank ^ 1, i, MPI_COMM_WORLD);
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    if (argc_lost) {
        MPI_Irecv(&in[0], 1, MPI_INT, rank ^ 1, 9, MPI_COMM_WORLD, &tmp); /* want request-never-completed */
        MPI_Irecv(&in[1], 1, MPI_INT, rank ^ 1, 10, MPI_COMM_WORLD, &tmp); /* want request-overwritten */
        MPI_Send(&out[0], 1, MPI_INT, rank ^ 1, 10, MPI_COMM_WORLD);
        MPI_Wait(&tmp, MPI_STATUS_IGNORE);
    }
    return 0;
}

static int args(void)
{
    /* argument errors MPICH reports through MPI_ERRORS_RETURN */
    int x = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Send(&x, -3, MPI_INT, rank ^ 1, 0, MPI_COMM_WORLD);        /* want negative-count */
    MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);            /* want invalid-rank */
    MPI_Send(&x, 1, MPI_INT, rank ^ 1, MPI_ANY_TAG, MPI_COMM_WORLD); /* want invalid-tag */
    MPI_Bcast(&x, 1, MPI_INT, size + 1, MPI_COMM_WORLD);          /* want invalid-root */
    MPI_Send(&x, 1, MPI_DATATYPE_NULL, rank ^ 1, 0, MPI_COMM_WORLD); /* want type-null */
    MPI_Datatype t;
    MPI_Type_vector(-1, 1, 1, MPI_INT, &t);                       /* want invalid-argument */
    MPI_Type_commit(&(MPI_Datatype){MPI_INT});                    /* want commit-predefined */
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *c = argc > 1 ? argv[1] : "";
    int rc = 1;
    if (strcmp(c, "overlap-path") == 0)
        rc = overlap_path();
    else if (strcmp(c, "uncommitted") == 0)
        rc = uncommitted();
    else if (strcmp(c, "leaks") == 0)
        rc = leaks();
    else if (strcmp(c, "args") == 0)
        rc = args();
    else if (strcmp(c, "registry") == 0)
        rc = registry_case();
    else if (strcmp(c, "reqcopy") == 0)
        rc = reqcopy();
    else if (strcmp(c, "reqlost") == 0) {
        argc_lost = 1;
        rc = reqcopy();
    }
    else if (rank == 0)
        fprintf(stderr, "bugs: unknown case %s\n", c);
    MPI_Finalize();
    return rc;
}
