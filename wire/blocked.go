package wire

import (
	"fmt"

	"github.com/mpidbg/mpidbg/checks"
)

// The deadlock detector's messages. A rank sends Blocked when one MPI call
// has not returned for a while (100 ms) and Unblocked when it returns; the
// launcher keeps the wait-for graph from them. Before it reports a
// deadlock, the launcher sends Confirm to each rank in it, and each
// answers Confirmed once it has watched its call for a while with its
// threads given the CPU. The launcher sends Stop to a rank that should
// wait for a debugger.

const (
	KindBlocked   Kind = "blocked"   // rank to launcher
	KindUnblocked Kind = "unblocked" // rank to launcher
	KindConfirm   Kind = "confirm"   // launcher to rank
	KindConfirmed Kind = "confirmed" // rank to launcher
	KindStop      Kind = "stop"      // launcher to rank
)

// Mode says how a blocked call's waits combine.
type Mode string

const (
	And Mode = "and" // every wait must be satisfied (MPI_Wait, MPI_Waitall, blocking calls)
	Or  Mode = "or"  // one is enough (MPI_Waitany, MPI_Waitsome)
)

// WaitKind says what one wait needs.
type WaitKind string

const (
	WaitRecv  WaitKind = "recv"  // a message from one of Ranks
	WaitSend  WaitKind = "send"  // Ranks[0] to take a message (synchronous, or not buffered)
	WaitColl  WaitKind = "coll"  // every rank of Ranks to reach collective Coll on Comm
	WaitOther WaitKind = "other" // something the detector cannot name (RMA, I/O, generalized requests)
	// WaitSync: Ranks[0]'s part of a post-start-complete-wait epoch on
	// the window Comm (its post, or its complete); held only while that
	// rank is in a collective on the same window.
	WaitSync WaitKind = "sync"
)

// AnyTag is the tag of a receive that takes any tag (MPI_ANY_TAG is -1
// in MPICH and Open MPI alike).
const AnyTag = -1

// Blocked says that a rank has been inside one MPI call for a while.
// Ranks are MPI_COMM_WORLD ranks: the rank translated them from the
// communicator's group, so the launcher needs no communicator tables.
type Blocked struct {
	Rank  int         `json:"rank"`
	Seq   uint64      `json:"seq"` // names the call: Unblocked carries the same
	Call  string      `json:"call"`
	Site  checks.Site `json:"site"`           // the call's return address
	Args  string      `json:"args,omitempty"` // "source=1, tag=0, comm=MPI_COMM_WORLD"
	Mode  Mode        `json:"mode"`
	Waits []Wait      `json:"waits,omitempty"`
	// Truncated: the call waits for more than Waits lists (the rank keeps
	// a bounded number); the detector then assumes nothing about the rest.
	Truncated bool          `json:"truncated,omitempty"`
	Stack     []checks.Site `json:"stack,omitempty"` // return addresses, innermost first, from the call's site outwards
	// ZeroBuffered: a standard-mode send that --buffering=zero made
	// synchronous; MPI would probably have buffered it.
	ZeroBuffered bool `json:"zero_buffered,omitempty"`
	// Polling: the rank is not inside Call but calls it in a loop on the
	// same incomplete requests, doing little else (MPI_Test until done).
	Polling bool `json:"polling,omitempty"`
	// ForMS is how long the call had been blocked when the rank sent this
	// (the launcher's clock and the rank's need not agree, a duration
	// does).
	ForMS int64 `json:"for_ms"`
}

// Wait is one thing a blocked call waits for.
type Wait struct {
	Kind WaitKind `json:"kind"`
	// Ranks that can satisfy it, in MPI_COMM_WORLD: the peer, every rank
	// of the group for MPI_ANY_SOURCE (Any set), every member for a
	// collective. Empty when the rank could not translate them.
	Ranks    Ranks       `json:"ranks,omitempty"`
	Any      bool        `json:"any,omitempty"`
	Tag      int         `json:"tag"`
	Call     string      `json:"call,omitempty"`      // the call that started the operation
	Comm     uint64      `json:"comm,omitempty"`      // the communicator's job-wide id; 0 unknown
	CommName string      `json:"comm_name,omitempty"` // "MPI_COMM_WORLD", a name given by MPI_Comm_set_name
	Coll     uint64      `json:"coll,omitempty"`      // WaitColl: the collective's number on Comm, from 1
	Site     checks.Site `json:"site,omitempty"`      // where the operation started, when not in this call
}

// Unblocked says that the call Blocked announced has returned.
type Unblocked struct {
	Rank int    `json:"rank"`
	Seq  uint64 `json:"seq"`
}

// Confirm asks a rank whether it is still blocked in the call Seq names
// (Blocked.Seq). The launcher's view is made of messages and its clock: a
// rank whose threads were not given the CPU (a stopped process, an
// overloaded node) sends nothing and looks stuck while the message it
// waits for has arrived. Only the rank can tell.
// Probe numbers the question, so that a late answer to an earlier one is
// not taken for this one's.
type Confirm struct {
	Seq   uint64 `json:"seq"`
	Probe uint64 `json:"probe"`
}

// Confirmed answers Confirm. Seq is the call the rank is blocked in now
// (0: none): another than Confirm's when that call is over. Still: the
// rank was in the same call throughout a look of its own, during which
// every thread of the process that could run was given the CPU (or the
// rank failed while looking, and leaves the launcher to its own view).
// Still false with the same Seq: a thread could run but was not given the
// CPU for as long as the rank looked, or a rank that polled stopped its
// tests (ask again later).
type Confirmed struct {
	Rank  int    `json:"rank"`
	Seq   uint64 `json:"seq"`
	Probe uint64 `json:"probe"`
	Still bool   `json:"still"`
}

// Stop asks a rank to stop itself (SIGSTOP) for a debugger, after saying
// on standard error how to attach. Why is printed with it.
type Stop struct {
	Why string `json:"why,omitempty"`
}

// check tells whether the enumerations of b hold known values.
func (b *Blocked) check() error {
	if b.Mode != And && b.Mode != Or {
		return fmt.Errorf("blocked: mode %q is not and or or", b.Mode)
	}
	for i, w := range b.Waits {
		switch w.Kind {
		case WaitRecv, WaitSend, WaitColl, WaitOther, WaitSync:
		default:
			return fmt.Errorf("blocked: waits[%d]: kind %q is not recv, send, coll, sync or other", i, w.Kind)
		}
	}
	return nil
}
