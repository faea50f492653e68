/*
 * The Lamport clock (mpidbg_xr_clock) as the passive-target comparisons
 * read it (rma_epoch.c between operations, rma_passive.c between an
 * operation and the target's own loads and stores): a send is an event of
 * its own, so a point-to-point send ticks the clock once more when it
 * returns.
 *
 * Why: a send ticks the clock and carries the new value; the receiver
 * continues above it (max + 1), but the sender continues at it. So what
 * the sender does right after its send had the same clock as the message,
 * and everything the receiver does after the receive looked later than
 * it, ordered: a target that sends "ready" and then overwrites its window
 * while the origin, having received "ready", gets from it (the store was
 * taken for ordered before the get); an origin that sends a request, gets
 * before the answer arrives, and a target that stores after receiving the
 * request (the get's epoch, at the request's clock, was taken for ended
 * before the store). With the tick the sender's later events are above
 * the message's clock too, as the receiver's are, and such pairs overlap.
 *
 * The tick is a local event: the clock stays a Lamport clock (an event
 * that happens before another still has a lower clock), so no check that
 * reads it can report a pair that a chain of messages orders; the message
 * race check (xr_p2p.c) may see some concurrent sends as later than it
 * did, never the reverse. It runs only while a window whose passive
 * epochs are compared exists (mpidbg_rma_ticking), at the exit of the
 * calls that send (mpidbg_leave), when the clock moved during the call:
 * a send to MPI_PROC_NULL sends nothing, MPI_Start of a receive neither.
 */
#include "shim.h"
#include "rma_win.h"

int mpidbg_rma_ticking;
static uint64_t seen; /* the clock at the last exit while ticking */

static int sends(int call)
{
    switch (call) {
    case MPIDBG_CALL_MPI_Send:
    case MPIDBG_CALL_MPI_Bsend:
    case MPIDBG_CALL_MPI_Ssend:
    case MPIDBG_CALL_MPI_Rsend:
    case MPIDBG_CALL_MPI_Isend:
    case MPIDBG_CALL_MPI_Ibsend:
    case MPIDBG_CALL_MPI_Issend:
    case MPIDBG_CALL_MPI_Irsend:
    case MPIDBG_CALL_MPI_Send_c:
    case MPIDBG_CALL_MPI_Bsend_c:
    case MPIDBG_CALL_MPI_Ssend_c:
    case MPIDBG_CALL_MPI_Rsend_c:
    case MPIDBG_CALL_MPI_Isend_c:
    case MPIDBG_CALL_MPI_Ibsend_c:
    case MPIDBG_CALL_MPI_Issend_c:
    case MPIDBG_CALL_MPI_Irsend_c:
    case MPIDBG_CALL_MPI_Start:
    case MPIDBG_CALL_MPI_Startall:
        return 1;
    }
    return 0;
}

void mpidbg_rma_leave(int call)
{
    /* only while no other thread calls MPI: the windows that tick exist
     * only outside MPI_THREAD_MULTIPLE (rma.c) */
    uint64_t c = mpidbg_xr_clock;
    if (c != seen && sends(call))
        c = ++mpidbg_xr_clock;
    seen = c;
}
