// ranks: 3
//
// ok_packed.c: MPI_PACKED and MPI_BYTE used as the standard allows.
//   - Rank 1 packs 3 ints and 2 doubles with MPI_Pack and sends the packed
//     buffer as MPI_PACKED; rank 0 receives it with a struct datatype of
//     3 INT then 2 DOUBLE (MPI-4.1 §3.3.1 and §5.2: a message sent as
//     MPI_PACKED matches any receive type).
//   - Rank 2 sends the same values with that struct datatype; rank 0
//     receives them as MPI_PACKED and unpacks them with MPI_Unpack (any
//     message may be received as MPI_PACKED).
//   - Rank 1 sends a raw record as MPI_BYTE, received as MPI_BYTE.
// Rank 0 checks every value.
// Correct: must produce no findings.
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

static int errors;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            errors++;                                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

struct rec {
    int n[3];
    double x[2];
};

int main(int argc, char **argv)
{
    int rank, total, pos, i, psize;
    char packed[256];
    struct rec r = {{0, 0, 0}, {0, 0}};
    MPI_Datatype rec_t;
    int bl[2] = {3, 2};
    MPI_Aint disp[2] = {offsetof(struct rec, n), offsetof(struct rec, x)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Type_create_struct(2, bl, disp, types, &rec_t);
    MPI_Type_commit(&rec_t);
    MPI_Pack_size(1, rec_t, MPI_COMM_WORLD, &psize);
    CHECK(psize <= (int)sizeof packed, "pack size %d\n", psize);

    if (rank == 0) {
        unsigned char raw[8];
        MPI_Recv(&r, 1, rec_t, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(r.n[0] == 1 && r.n[2] == 3 && r.x[1] == 2.5, "packed -> typed: %d %d %g\n", r.n[0], r.n[2], r.x[1]);

        MPI_Recv(packed, (int)sizeof packed, MPI_PACKED, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pos = 0;
        MPI_Unpack(packed, (int)sizeof packed, &pos, r.n, 3, MPI_INT, MPI_COMM_WORLD);
        MPI_Unpack(packed, (int)sizeof packed, &pos, r.x, 2, MPI_DOUBLE, MPI_COMM_WORLD);
        CHECK(r.n[0] == 20 && r.n[2] == 22 && r.x[1] == -1.0, "typed -> packed: %d %d %g\n", r.n[0], r.n[2], r.x[1]);

        MPI_Recv(raw, 8, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < 8; i++)
            CHECK(raw[i] == 0xA0 + i, "raw[%d] = %#x\n", i, raw[i]);
    } else if (rank == 1) {
        int n[3] = {1, 2, 3};
        double x[2] = {1.5, 2.5};
        unsigned char raw[8];
        pos = 0;
        MPI_Pack(n, 3, MPI_INT, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
        MPI_Pack(x, 2, MPI_DOUBLE, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
        MPI_Send(packed, pos, MPI_PACKED, 0, 0, MPI_COMM_WORLD);
        for (i = 0; i < 8; i++)
            raw[i] = 0xA0 + i;
        MPI_Send(raw, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    } else if (rank == 2) {
        struct rec s = {{20, 21, 22}, {-0.5, -1.0}};
        MPI_Send(&s, 1, rec_t, 0, 1, MPI_COMM_WORLD);
    }

    MPI_Type_free(&rec_t);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("ok_packed: OK\n");
    MPI_Finalize();
    return total != 0;
}
