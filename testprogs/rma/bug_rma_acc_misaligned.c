// ranks: 3
//
// bug_rma_acc_misaligned.c: rank 0 exposes a byte-addressed window
// (disp_unit 1) of packed event records, a one-byte kind followed by a
// 32-bit counter. Rank 1 finds the counter of record 0 with the packed
// layout (byte 1) and adds to it with MPI_Accumulate(MPI_SUM, MPI_INT);
// rank 2 uses the padded C struct's offsetof (byte 4) and adds to "the
// same counter" in the same fence epoch. Both use MPI_SUM on MPI_INT, but
// the two ints overlap (bytes 4 to 7 and 1 to 4 share byte 4) without
// starting at the same byte. MPI-4.1 §12.7.1: concurrent accumulates are
// atomic only on the same locations with the same predefined datatype,
// and "the outcome of accumulate operations with overlapping types of
// different sizes or target displacements is undefined". mpidbg must
// report rma-conflict at rank 1's MPI_Accumulate, with rank 2's as the
// related place.
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct padded { /* how rank 2 believes the record is laid out */
    uint8_t kind;
    int32_t count;
};

enum { RECORD = 5, NREC = 16 }; /* packed: kind at 0, count at 1 */

int main(int argc, char **argv)
{
    int rank, one = 1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    unsigned char *records = calloc(NREC, RECORD);
    MPI_Win_create(records, NREC * RECORD, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 1) {
        MPI_Aint at = 0 * RECORD + 1; /* the packed layout: right */
        MPI_Accumulate(&one, 1, MPI_INT, 0, at, 1, MPI_INT, MPI_SUM, win); // want "rma-conflict" "accumulates of MPI_INT whose elements overlap without starting at the same byte \(4-byte elements, 3 bytes apart\)"
    } else if (rank == 2) {
        MPI_Aint at = 0 * RECORD + offsetof(struct padded, count); /* the padded one: wrong */
        MPI_Accumulate(&one, 1, MPI_INT, 0, at, 1, MPI_INT, MPI_SUM, win); // related "rma-conflict"
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(records);
    MPI_Finalize();
    return 0;
}
