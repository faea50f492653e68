package checks

// The findings of the access tracker: a load or store of the program that
// touches a buffer MPI still owns. Nonblocking point-to-point and
// collectives (buffer-race), and one-sided communication (rma-race).
func init() {
	register(
		Entry{ID: "send-buffer-write", Category: CatBufferRace, Severity: SevError,
			Title: "the program wrote to the buffer of a send that MPI had not sent yet",
			Rule:  "MPI-4.1 §3.7.2: the sender must not modify any part of the send buffer after a nonblocking send operation is called, until the send completes",
			Doc: `A nonblocking send (MPI_Isend, MPI_Ibsend, MPI_Issend, MPI_Irsend, a started
persistent send, the send buffer of a nonblocking collective) owns its
buffer until MPI_Wait or MPI_Test says it is complete. The program stored
into that buffer before MPI had read it: the receiver may get the old
value, the new one, or a mix, depending on the MPI library, the message
size and the network.

mpidbg write-protects the pages of a pending send buffer; the store faults,
the tracker checks that it hit a byte of the buffer's datatype (other data
on the same page is not reported), records the store's program counter
and lets it proceed. The report names the store's file:line (a memcpy or
memset into the buffer is reported at its caller), the operation as the
related location, the offset and the element of the datatype that was
written, e.g. [3](INT). One report per operation. Complete the request
before reusing the buffer, or send from a copy.

When MPI had finished with the data already (the send completed when it
started, as small eager sends do), the same store is buffer-access-latent.
Loop sites are sampled after their first operations, and the stack just
above the stack pointer is not watched: small send buffers there are
checked by send-buffer-changed instead (docs/races.md).`},
		Entry{ID: "recv-buffer-access", Category: CatBufferRace, Severity: SevError,
			Title: "the program read or wrote the buffer of a receive that MPI had not filled yet",
			Rule:  "MPI-4.1 §3.7.2: the receiver must not access any part of the receive buffer after a nonblocking receive operation is called, until the receive completes",
			Doc: `A nonblocking receive (MPI_Irecv, MPI_Imrecv, a started persistent receive,
the receive buffer of a nonblocking collective) owns its buffer until a
completion call (MPI_Wait, MPI_Test with flag true, and their variants)
says it is complete. The program loaded from or stored to that buffer
before the data had arrived: a load sees stale data, a store may be
overwritten by the message (or overwrite it).

mpidbg makes the pages of a pending receive buffer inaccessible and checks
each fault against the bytes of the buffer's datatype. The report names
the access (load or store) and its file:line, the receive as the related
location, the offset and the element touched. Call MPI_Wait (or test
until the flag is true) before using the buffer.

When the data had arrived already (MPI wrote the buffer inside an earlier
MPI call, or the receive completed when it started), the same access is
buffer-access-latent. Receive buffers on the stack within a few KiB of the
stack pointer are not watched, and there is no copy-and-compare tier for
receives (docs/races.md).`},
		Entry{ID: "buffer-access-latent", Category: CatBufferRace, Severity: SevWarning,
			Title: "the program touched a pending buffer after MPI moved the data but before the completion call",
			Rule:  "MPI-4.1 §3.7.2 and §3.7.3: a buffer belongs to MPI until the operation is completed by a completion call, whenever the data is actually moved",
			Doc: `The access came after the MPI library had already read the send buffer or
filled the receive buffer, so the program got the right data this time.
It is still erroneous: whether the data has moved before MPI_Wait depends
on the message size, the MPI library and the network (an eager send is
copied at once; a rendezvous send is read when the receiver arrives). On
another machine the same access reads stale data or corrupts the message.

This is the "potential error" state of the SyncChecker approach: the
tracker saw the library's own write to the receive buffer (a fault inside
an MPI call, which is never reported), or the operation completed when it
started (MPICH hands back a completed request), and then the program's
access. A send's data counts as moved only in the second case: the library
reads a write-protected buffer without faulting. A request that is never
completed at all (no MPI_Wait) lands here too, with
request-never-completed at MPI_Finalize.`},
		Entry{ID: "send-buffer-changed", Category: CatBufferRace, Severity: SevError,
			Title: "a pending send buffer changed between the send and its completion",
			Rule:  "MPI-4.1 §3.7.2: the send buffer must not be modified until the send completes",
			Doc: `The cheap tier of the access tracker: every contiguous send buffer of up to
256 bytes (a predefined datatype) is copied when the send starts and
compared at the completion call. A difference means the program stored
into the buffer while MPI owned it. This tier cannot see the store itself,
so the report is at the completion call and names the send and the first
element that changed. It covers what page protection does not watch:
buffers on the stack just above the stack pointer (every call writes
there, so those pages are never protected), operations the sampling
skipped, pages the tracker gave up on. A store that page protection
caught is not reported again here, nor is a buffer a later receive of MPI
writes into (buffer-overlap reports that), nor a send freed with
MPI_Request_free before it completed. Receives have no such tier: their
content is the message's, not the program's.`},
		Entry{ID: "rma-origin-race", Category: CatRMARace, Severity: SevError,
			Title: "the program touched the origin or result buffer of a one-sided operation before it completed",
			Rule:  "MPI-4.1 §12.3 and §12.5: the origin buffer of MPI_Put or MPI_Accumulate must not be updated, and the result buffer of MPI_Get (and the get-accumulate family) must not be accessed, until the operation completes at the origin (MPI_Win_fence, MPI_Win_complete, MPI_Win_unlock(_all), MPI_Win_flush(_local)(_all), or the request of MPI_Rput/MPI_Rget)",
			Doc: `One-sided operations return before data moves. MPI_Put may read its origin
buffer at any time up to the synchronisation call that completes it; MPI_Get
may write its result buffer at any time up to then. Reusing the origin
buffer of a Put before the closing fence, or reading a Get's result before
MPI_Win_unlock, works on some networks and sends or reads garbage on others
(run with --nasty to see it break).

mpidbg hands the origin (and compare) buffers of every pending one-sided
operation to the access tracker write-protected, and result buffers with no
access at all, from the call until the synchronisation call that completes
it at the origin (MPI_Win_flush_local completes it there too; MPI_Win_sync
and MPI_Win_lock do not). The report is at the program's load or store,
with the operation's line as the related place and the element of the
origin datatype touched. Request-based operations (MPI_Rput, MPI_Rget...)
are watched through their request until MPI_Wait or MPI_Test completes it.
Like every tracked buffer, operations are sampled per call site after the
first ones (docs/races.md).`},
		Entry{ID: "rma-conflict", Category: CatRMARace, Severity: SevError,
			Title: "two one-sided operations touch the same target memory in concurrent epochs",
			Rule:  "MPI-4.1 §12.7: it is erroneous to have concurrent conflicting accesses to the same memory location in a window; concurrent accumulates with the same operation and basic datatype are the one exception",
			Doc: `Two RMA operations conflict when they touch an overlapping byte of the same
target window and at least one of them writes it (Put, Accumulate,
Get_accumulate, Fetch_and_op, Compare_and_swap), unless both are
accumulate-family operations with the same op and basic type (MPI makes
those element-wise atomic). They are concurrent when no synchronisation
orders them: the same fence epoch, overlapping post/start/complete/wait
epochs, or shared/lock_all passive-target epochs that overlap in time with
no flush-and-barrier or message between them. Two origins putting to one
word in one fence epoch is the classic case: the target ends with either
value, or a mix.

Each operation's target bytes (exactly, from the target datatype's type
map, so that two origins writing the even and the odd elements of an array
with vector types do not conflict) travel to the target when the epoch
closes: at every MPI_Win_fence, at MPI_Win_complete for MPI_Win_wait, and
for passive-target epochs at MPI_Win_free, where epochs of different
origins count as concurrent only when the Lamport clock that messages and
collectives carry does not order them (a flush or unlock followed by a
barrier or a message orders them; exclusive locks never overlap). The
target compares them and reports the first operation's line, with the
second operation as the related place, their ranks and the offset in the
window. One origin's operations conflict too (two puts to one location in
one epoch), except accumulates, which MPI orders. docs/rma-races.md says
what it cannot see.`},
		Entry{ID: "rma-target-race", Category: CatRMARace, Severity: SevError,
			Title: "a load or store at the target races with a remote one-sided operation on the same window memory",
			Rule:  "MPI-4.1 §12.7: a location updated by a put or accumulate must not be accessed by a load or store until the update has completed at the target, and a location read by a get must not be stored to concurrently; local accesses are ordered with remote ones only by synchronisation",
			Doc: `During an exposure epoch (between two fences, between MPI_Win_post and
MPI_Win_wait, or while another process holds a lock on the window) the
target process must not store into window memory that a remote operation
reads or writes, nor load memory a remote Put or Accumulate updates.

mpidbg records the target's own loads and stores to its window memory
during fence epochs and post/wait exposure epochs (the access tracker's log
mode: page protection, each access checked against exact bytes), and when
the epoch closes and the origins' operations arrive, reports each local
access that touches a remote operation's bytes (a load against a put or
accumulate, a store against any operation), at the access's line with the
remote operation's rank and line as the related place.

Against passive-target epochs (MPI_Win_lock, MPI_Win_lock_all), the
window memory is watched outside fence and exposure epochs; each access
carries the Lamport clock and what the target held (a lock on its own
window, an earlier MPI_Win_sync or fetching atomic), and at MPI_Win_free
an access is reported when no synchronisation orders it against a remote
operation on its bytes: no flush or unlock followed by a message or
collective before it, no exclusive lock on its own window around it.
Loads of bytes an atomic (accumulate-family) operation updates are not
reported: that is how programs poll flags. Dynamic windows are not
watched; after the first epochs and watch periods of a window only some
are (docs/rma-races.md).`},
		Entry{ID: "rma-unsynchronised", Category: CatRMARace, Severity: SevWarning,
			Title: "a one-sided operation was never completed while the program waited (--nasty)",
			Rule:  "MPI-4.1 §12.5.4: an RMA operation is complete at the target only after a synchronisation call (MPI_Win_flush, MPI_Win_unlock, ...) at the origin; MPI may delay it until then",
			Doc: `Reported in forcing mode (mpidbg run --nasty), which holds each one-sided
operation back until a synchronisation call requires it, as an MPI library
on a network without remote progress may (docs/nasty.md). The program
issued an operation, then kept making one-sided calls that do not complete
it (MPI_Win_sync, atomics on its own window with MPI_Win_flush of its own
rank, flushes of other targets...) for longer than --nasty-hold-timeout
(1s): typically a rank that waits for a flag while the operation that
lets the other side set it (a queue link, a hand-over) sits unflushed. On
most machines the operation goes through at once and the program works;
with --nasty the process it writes to waits for it forever.

The report is at the held operation's line, once per line, and names its
target rank and displacement; the related place is the call the rank kept
making. Add MPI_Win_flush (or MPI_Win_flush_local, MPI_Win_unlock) for its
target after the operation. mpidbg then issues the operation, and every
other one held for that target, with a flush, so that the program goes
on; later operations from the same line are no longer held.`},
	)
}
