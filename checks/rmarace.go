package checks

import (
	"fmt"
	"time"

	"github.com/mpidbg/mpidbg/datatype"
)

// One-sided races: the program touches an origin or result buffer before
// the operation completed (the access tracker), two operations touch the
// same target bytes in one epoch, or the target's own loads and stores
// race with them (shim/rma*.c), and operations --nasty held back.

// completers names the calls that complete a one-sided operation at the
// origin, for the advice in rma-origin-race.
const completers = "MPI_Win_fence, MPI_Win_complete, MPI_Win_unlock(_all), MPI_Win_flush(_local)(_all)"

// rmaOriginRace: the access tracker fills the event like any tracked
// buffer: the variant is load or store, Val the tracker's mode
// (ModeMPIReads for a Put's or an accumulate's origin, ModeMPIWrites for
// a Get's result), Count x Handle at Addr the buffer, At the byte touched,
// RelatedCall the operation.
var rmaOriginRace = register(Check{
	Entry: Entry{ID: "rma-origin-race", Access: true, Category: CatRMARace, Severity: SevError,
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
	Message: func(m *Message) {
		m.MarkRelated(trackedBuffer(m))
		op := m.RelatedCall
		here := m.ElementAt(m.Handle, m.Addr, m.Count, m.At)
		m.SetPath(here)
		m.Type(m.Handle)
		where := ""
		if m.Addr != 0 {
			where = fmt.Sprintf(" at offset %d", int64(m.At-m.Addr))
		}
		if here != "" {
			where += ", element " + here
		}
		access, value := "loaded from", "read may be the old one, the new one or a mix"
		if m.Variant == VariantStore {
			access, value = "stored to", "stored may be overwritten"
		}
		if m.Val == ModeMPIWrites {
			m.Printf("the program %s the result buffer%s before the %s completed: MPI may write it at any time until the call that completes the operation at the origin (%s), so the value %s",
				access, where, op, completers, value)
			return
		}
		m.Printf("the program %s the origin buffer%s before the %s completed: MPI may read it at any time until the call that completes the operation at the origin (%s), so the target may receive the old value, the new one or a mix",
			access, where, op, completers)
	},
})

// rmaConflict (shim/rma_epoch.c, at the target): Remote[0] and
// Remote[1] are the two operations, the lower origin first, then the
// earlier call; the finding's place is the first one's (FlagRemoteSite).
// Target is the target process, Epoch the epoch, Val the first shared
// byte (an offset in the window, or the target's address with
// FlagDynamicWindow), Unit the first operation's displacement unit; the
// variant says why they conflict: BOTH_WRITE, WRITES (one writes what the
// other reads), or, between two accumulates, ACC_BASIC (different basic
// types), ACC_ALIGN (elements that overlap at different displacements),
// ACC_OP (different ops) or ACC_NO_OP (MPI_NO_OP against another op
// under accumulate_ops=same_op). Between two accumulates Count and Count2
// are their basic types (datatype.Basic, 0 unknown); for ACC_ALIGN Lim is
// the element size and At how many bytes apart the two elements start.
// FlagAccUnordered: one origin's two accumulates that the window's
// accumulate_ordering leaves unordered; FlagSameOp: accumulate_ops is
// same_op; FlagThreads: two threads of the origin made the two calls.
var rmaConflict = register(Check{
	Entry: Entry{ID: "rma-conflict", Category: CatRMARace, Severity: SevError,
		Title: "two one-sided operations touch the same target memory in concurrent epochs",
		Rule:  "MPI-4.1 §12.7: it is erroneous to have concurrent conflicting accesses to the same memory location in a window; §12.7.1: concurrent accumulates are atomic only with the same predefined datatype at the same displacements and with the ops accumulate_ops allows (§12.2.1); §12.7.2: accumulate_ordering orders one origin's accumulates per datatype",
		Doc: `Two RMA operations conflict when they touch an overlapping byte of the same
target window and at least one of them writes it (Put, Accumulate,
Get_accumulate, Fetch_and_op, Compare_and_swap), unless both are
accumulate-family operations MPI makes element-wise atomic against each
other (MPI-4.1 §12.7.1): the same predefined basic type, elements that
start at the same bytes (MPI_INT accumulates at byte displacements 0 and
1 overlap without being atomic), and the same op, or MPI_NO_OP on one side
unless the window's accumulate_ops is same_op (MPI_Compare_and_swap counts
as MPI_REPLACE). One origin's accumulates are ordered when they have the
same basic type and the window's accumulate_ordering (default
rar,raw,war,waw; none orders nothing) keeps that order (§12.7.2); the
window's info is read at creation and from MPI_Win_set_info.

They are concurrent when no synchronisation orders them: the same fence epoch, overlapping post/start/complete/wait
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
one epoch), except accumulates that MPI orders (above). docs/rma-races.md
says what it cannot see.

Under MPI_THREAD_MULTIPLE calls of different threads are concurrent unless
the program orders them (MPI-4.1 §3.5): a flush made by one thread orders
another thread's later operation only through a lock, barrier, condition
variable, semaphore, thread join, OpenMP construct or MPI message between
the two threads. Threads that hand over through atomic variables say so
with MPIDBG_HAPPENS_BEFORE(p) and MPIDBG_HAPPENS_AFTER(p) from mpidbg.h
(include/ in the source tree; no-ops without mpidbg). docs/threads.md
lists what is followed.`},
	Message: func(m *Message) {
		m.Mark("target_disp")
		m.MarkRemote(1, "target_disp")
		if len(m.Remote) < 2 {
			m.SetText("two one-sided operations conflict")
			return
		}
		a, b := m.Remote[0], m.Remote[1]
		where := fmt.Sprintf("at offset %d of the window", m.Val)
		if m.Flags&FlagDynamicWindow != 0 { // window space is the target's addresses
			where = fmt.Sprintf("at address %#x of the target's memory (a dynamic window)", uint64(m.Val))
		}
		if m.Unit > 1 {
			where += fmt.Sprintf(" (displacement %d in units of %d bytes)", m.Val/m.Unit, m.Unit)
		}
		epoch := conflictEpochs[m.Epoch]
		why := conflictReason(m)
		if a.Rank == b.Rank {
			unordered := "MPI does not order one origin's operations (accumulates apart)"
			switch {
			case m.Variant == VariantAccBasic:
				unordered = "MPI orders one origin's accumulates only when they have the same basic datatype (MPI-4.1 §12.7.2)"
			case m.Flags&FlagAccUnordered != 0:
				unordered = "the window's accumulate_ordering does not order these two (MPI-4.1 §12.7.2)"
			}
			if m.Flags&FlagThreads != 0 {
				m.SetText(fmt.Sprintf("two threads of rank %d, with %s and %s, touch the same bytes of the target's window (process %d), and %s: "+
					"nothing orders the second call after the flush or unlock that completed the first (calls of different threads are concurrent "+
					"unless a lock, barrier, join, OpenMP construct, MPI message or MPIDBG_HAPPENS_BEFORE/AFTER orders them, MPI-4.1 §3.5); "+
					"first shared byte %s; the result is undefined (MPI-4.1 §12.7)",
					a.Rank, a.Call, b.Call, m.Target, why, where))
				m.RemoteText(1, "the other thread's %s %s the same bytes here", b.Call, conflictVerbs[b.Access])
				return
			}
			m.SetText(fmt.Sprintf("rank %d's %s and its later %s touch the same bytes of the target's window (process %d) in %s, and %s: %s; "+
				"first shared byte %s; the result is undefined (MPI-4.1 §12.7)",
				a.Rank, a.Call, b.Call, m.Target, epoch, why, unordered, where))
		} else {
			m.SetText(fmt.Sprintf("rank %d's %s and rank %d's %s touch the same bytes of the target's window (process %d) in %s, and %s: first shared "+
				"byte %s; the result is undefined (MPI-4.1 §12.7)", a.Rank, a.Call, b.Rank, b.Call, m.Target, epoch, why, where))
		}
		// the first operation is the finding's own place (FlagRemoteSite)
		m.RemoteText(1, "rank %d's %s %s the same bytes here", b.Rank, b.Call, conflictVerbs[b.Access])
	},
})

// conflictEpochs says in which epochs two operations met.
var conflictEpochs = map[Epoch]string{
	EpochFence:   "one fence epoch",
	EpochFreed:   "one epoch (closed by MPI_Win_free)",
	EpochPassive: "passive-target epochs that nothing orders (shared locks or MPI_Win_lock_all, no flush followed by a synchronisation between them)",
	EpochPSCW:    "one post/start/complete/wait epoch",
}

// conflictReason says why the two operations of an rma-conflict are not
// compatible.
func conflictReason(m *Message) string {
	switch m.Variant {
	case VariantBothWrite:
		return "both write them"
	case VariantWrites:
		return "one writes what the other reads"
	case VariantAccBasic:
		return fmt.Sprintf("they are accumulates with different basic datatypes%s, which MPI does not make atomic against each other (MPI-4.1 §12.7.1)",
			basicPair(m.Count, m.Count2))
	case VariantAccAlign:
		return fmt.Sprintf("they are accumulates of %s whose elements overlap without starting at the same byte (%d-byte elements, %s apart), "+
			"which MPI does not make atomic (MPI-4.1 §12.7.1)", basicName(m.Count), m.Lim, plural(int64(m.At), "byte", "bytes"))
	case VariantAccNoOp:
		return "one only reads them with MPI_NO_OP while the other updates them with another operation, and the window's accumulate_ops is same_op " +
			"(one operation per location, MPI_NO_OP included: MPI-4.1 §12.2.1; same_op_no_op allows MPI_NO_OP)"
	case VariantAccOp:
		if m.Flags&FlagSameOp != 0 {
			return "they are accumulates with different operations (the window's accumulate_ops is same_op: one operation per location)"
		}
		return "they are accumulates with different operations (the default accumulate_ops is same_op_no_op: one operation per location, or MPI_NO_OP)"
	}
	return "they conflict"
}

// basicName names a basic datatype (datatype.Basic) as MPI does, or says
// "one basic datatype" when it is not known.
func basicName(b int64) string {
	if t := datatype.Basic(b); b > 0 && b < 256 && t.Valid() {
		return "MPI_" + t.String()
	}
	return "one basic datatype"
}

// basicPair is " (MPI_FLOAT and MPI_INT)", or "" when either is not known.
func basicPair(a, b int64) string {
	if basicName(a) == "one basic datatype" || basicName(b) == "one basic datatype" {
		return ""
	}
	return fmt.Sprintf(" (%s and %s)", basicName(a), basicName(b))
}

var conflictVerbs = map[Access]string{
	AccessRead: "reads", AccessAccRead: "reads", AccessAcc: "accumulates into", AccessWrite: "writes",
}

// rmaTargetRace (shim/rma_target.c, at the target): the target's own
// load or store (the variant) of byte Val of its window, at the finding's
// place, against Remote[0], the operation that touched the same bytes;
// Unit is the target's displacement unit, Epoch the epoch they met in.
var rmaTargetRace = register(Check{
	Entry: Entry{ID: "rma-target-race", Access: true, Category: CatRMARace, Severity: SevError,
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
	Message: func(m *Message) {
		m.MarkRemote(0, "target_disp")
		if len(m.Remote) < 1 {
			m.SetText("a load or store races with a one-sided operation")
			return
		}
		r := m.Remote[0]
		store := m.Variant == VariantStore
		what := "updates"
		if r.Access == AccessRead || r.Access == AccessAccRead {
			what = "reads"
		}
		unit := ""
		if m.Unit > 1 {
			unit = fmt.Sprintf(", displacement %d in units of %d bytes", m.Val/m.Unit, m.Unit)
		}
		access, local, outcome := "loads from", "load", "the load may see the old value, the new one or a mix"
		switch {
		case store && r.Access == AccessRead:
			access, local, outcome = "stores to", "store", "the remote read may see the old or the new value"
		case store:
			access, local, outcome = "stores to", "store", "either value may remain, or a mix"
		}
		m.SetText(fmt.Sprintf("rank %d %s its own window memory (byte %d%s) while rank %d's %s %s the same bytes %s: "+
			"nothing orders the local %s and the remote operation, so %s; separate them with a "+
			"synchronisation call on the window", m.Rank, access, m.Val, unit, r.Rank, r.Call, what, targetEpochs[m.Epoch], local, outcome))
		m.RemoteText(0, "rank %d's %s that %s the same bytes", r.Rank, r.Call, what)
	},
})

// targetEpochs says in which epoch the target's access met the operation.
var targetEpochs = map[Epoch]string{
	EpochFence:   "in the same fence epoch",
	EpochFreed:   "in the same fence epoch",
	EpochPassive: "in a passive-target epoch that no synchronisation orders against it",
	EpochPSCW:    "in the same exposure epoch",
}

// rmaUnsynchronised (shim/nasty.c): the held operation is the finding's
// call and place; Val is its target rank, Lim the hold timeout in ms (not
// the time it was actually held, which differs from rank to rank: the
// report merges equal messages), Addr2 its target displacement;
// RelatedCall the call the rank kept making.
var rmaUnsynchronised = register(Check{
	Entry: Entry{ID: "rma-unsynchronised", Category: CatRMARace, Severity: SevWarning,
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
	Message: func(m *Message) {
		held := time.Duration(m.Lim) * time.Millisecond
		m.Printf("the operation to rank %d (target_disp %d) was still held back after %v while this rank kept calling %s, which does not complete it; "+
			"MPI may deliver it only at a synchronisation call that does (MPI_Win_flush(%d, win), MPI_Win_unlock, ...): mpidbg issued it then",
			m.Val, int64(m.Addr2), held, m.RelatedCall, m.Val)
	},
})
