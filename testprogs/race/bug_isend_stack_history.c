// ranks: 2
//
// bug_isend_stack_history.c: a solver keeps its residual history, 1024
// doubles, in an array on its stack, sends it to rank 1 for monitoring
// with MPI_Issend, and corrects one early entry before MPI_Wait.
// Breaks MPI-4.1 §3.7.2: the sender must not modify any part of the send
// buffer after a nonblocking send operation is called, until the send
// completes.
// Expected: send-buffer-changed at the MPI_Wait (rank 0), the MPI_Issend
// as the related location. The array spans three pages: its later pages
// are write-protected, but the corrected entry lies on its first page,
// which also holds the rest of the frame, within a few KiB of the stack
// pointer at the MPI call; mpidbg leaves such a page unprotected (the
// frame's own calls would fault on it: docs/races.md, "Stack buffers"),
// and the debug registers watch only its first 16 bytes. mpidbg copies a send's bytes on that page, up to a page, when
// the send starts and compares them when it completes. A synchronous
// send cannot complete before its receive starts, and rank 1 receives
// only after a barrier that rank 0 enters after the store: an error.
//
// The array starts 3072 bytes into a page-aligned block, so that its
// first-page part is 1 KiB (128 entries) whatever the stack's start
// (ASLR), and the corrected entry (100) on it. That page counts as the
// frame's while it lies within 6 KiB of the tracker's own frame; were
// the shim's frames to grow past that, the page would be protected and
// the store found where it is made (send-buffer-write) instead.
#include <mpi.h>
#include <stdio.h>

enum { N = 1024 };

static void report_history(int rank, int iters)
{
    struct {
        char other[3072];
        double history[N];
    } __attribute__((aligned(4096))) s;
    MPI_Request r;

    if (rank == 0) {
        double res = 1.0;
        for (int i = 0; i < N; i++) {
            s.history[i] = i < iters ? res : 0.0;
            res *= 0.9;
        }
        MPI_Issend(s.history, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // related "send-buffer-changed"
        s.history[100] = -1.0; // bug: the restart's entry patched before the wait
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE); // want "send-buffer-changed"
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(s.history, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (s.history[0] != 1.0)
            printf("rank 1: history[0] = %g\n", s.history[0]);
    }
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    report_history(rank, 300);
    MPI_Finalize();
    return 0;
}
