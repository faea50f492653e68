package checks

import "fmt"

// Event is what a detector hands over for one finding: the values its
// message is written from, before any text exists. The shim's C detectors
// fill its C twin (struct mpidbg_ev in shim/engine.h, whose enums are
// generated from the tables below); the shim converts it, and Describe
// writes the message. Which fields mean what is up to each finding's
// Message function, which documents the fields it reads.
type Event struct {
	ID      string
	Variant Variant
	// Call is the MPI function the finding is about ("MPI_Send"); Arg the
	// argument concerned, with its index when it is an array entry
	// ("recvcounts[2]").
	Call, Arg string
	// Val and Lim are the finding's numbers: the bad value and its
	// bound, a count, a mode.
	Val, Lim int64
	// Handle is the object concerned (a datatype, communicator, request),
	// Handle2 a second one (the other buffer's datatype); Kind says what
	// Handle is when the check knows it.
	Handle, Handle2 uint64
	Kind            HandleKind
	// Count x Handle at Addr and Count2 x Handle2 at Addr2 are buffers;
	// At is a byte address in them (the first shared byte, the byte a
	// program touched).
	Count, Count2   int64
	Addr, Addr2, At uint64
	// RelatedCall is the MPI function of the related place, and
	// RelatedKind what happened there.
	RelatedCall string
	RelatedKind RelatedKind
	// Text is a datum in words a message quotes (a constructor's rule from
	// the datatype model, an argument's or a communicator's name), Path an
	// element path a detector computed itself.
	Text, Path string

	// Rank is the reporting rank (MPI_COMM_WORLD).
	Rank int
	// Remote are the places in other ranks a cross-rank finding names:
	// their rank, MPI call and what it does to the memory concerned.
	Remote []Remote
	// Target is a window's target process (MPI_COMM_WORLD rank), Epoch
	// the kind of epoch a one-sided finding happened in, Unit the
	// window's displacement unit in bytes.
	Target int
	Epoch  Epoch
	Unit   int64
	// Flags are yes/no facts a detector adds (FlagDynamicWindow).
	Flags Flags
	// Groups are the ranks of a communicator that agree among themselves,
	// for the collective-* findings: one group per distinct entry.
	Groups []Group
	// Peer is another rank a finding names without a place of its own.
	Peer int
	// Ranks are the ranks a finding is about (those that found a
	// collective's blocks unpaired, those that can never continue).
	Ranks []int
	// SendType and RecvType name the datatypes of a collective's block
	// and of its partner, as Group's do; "" where the shim could not
	// tell.
	SendType, RecvType string
	// Items are a deadlock's edges of the wait-for graph as text, the
	// cycle's or knot's first.
	Items []string
}

// Remote is another rank's part in a cross-rank finding.
type Remote struct {
	Rank   int
	Call   string
	Access Access
}

// Group is one entry of a collective that some ranks agree on.
type Group struct {
	Ranks []int
	// Call is the collective and Mode how it was called (blocking,
	// nonblocking or persistent).
	Call string
	Mode CallMode
	// Root, Op and the counts are the entry's values; a count is -1
	// where the call has none.
	Root                 int64
	Op                   string
	SendCount, RecvCount int64
	// SendType and RecvType name the datatypes of the counts: a
	// predefined one's name, "a derived datatype", or "" when unknown.
	SendType, RecvType string
	// HasRoot: the group is the root of a gather or scatter, whose
	// counts and datatypes mean what the root receives or sends.
	HasRoot bool
}

// Access is what a one-sided operation does to the target's bytes.
type Access int32

// The accesses; C names MPIDBG_ACC_ and the name in Accesses.
const (
	AccessRead    Access = iota // MPI_Get and friends
	AccessWrite                 // MPI_Put
	AccessAcc                   // an accumulate that changes the bytes
	AccessAccRead               // an accumulate with MPI_NO_OP: it only reads
)

// Accesses names every Access, in value order.
var Accesses = []string{"READ", "WRITE", "ACC", "ACC_READ"}

// Epoch is the kind of one-sided epoch a finding happened in.
type Epoch int32

// The epochs; C names MPIDBG_EPOCH_ and the name in Epochs.
const (
	EpochNone    Epoch = iota
	EpochFence         // between two MPI_Win_fence
	EpochFreed         // fence-style, closed by MPI_Win_free
	EpochPassive       // passive-target epochs (lock, lock_all) nothing orders
	EpochPSCW          // post/start/complete/wait
)

// Epochs names every Epoch, in value order.
var Epochs = []string{"NONE", "FENCE", "FREED", "PASSIVE", "PSCW"}

// CallMode is how a collective was called.
type CallMode int32

// The call modes; C names MPIDBG_CALLMODE_ and the name in CallModes.
const (
	ModeBlocking CallMode = iota
	ModeNonblocking
	ModePersistent
)

// CallModes names every CallMode, in value order.
var CallModes = []string{"BLOCKING", "NONBLOCKING", "PERSISTENT"}

// Flags are yes/no facts of an event.
type Flags uint32

// The flags; C names MPIDBG_FLAG_ and the name in FlagNames.
const (
	// FlagDynamicWindow: the window is dynamic, so its offsets are the
	// target's addresses.
	FlagDynamicWindow Flags = 1 << iota
	// FlagRemoteSite: the finding's place is its first remote place, in
	// another rank (a lost message is the send's finding).
	FlagRemoteSite
	// FlagFoundHere: this rank found the fault itself (the event's
	// numbers describe it).
	FlagFoundHere
	// FlagAccUnordered: rma-conflict between two accumulates of one
	// origin that the window's accumulate_ordering does not order.
	FlagAccUnordered
	// FlagSameOp: rma-conflict under accumulate_ops=same_op.
	FlagSameOp
	// FlagThreads: rma-conflict between operations of two threads of one
	// origin, which only the program's synchronisation between the
	// threads would order.
	FlagThreads
	// FlagUnseen: recv-buffer-access where the tracker had left the
	// buffer's page open during an MPI call while the receive was
	// pending, so it could not see whether MPI had written the data
	// before the access.
	FlagUnseen
)

// FlagNames names every flag, bit 0 first.
var FlagNames = []string{"DYNAMIC_WINDOW", "REMOTE_SITE", "FOUND_HERE", "ACC_UNORDERED", "SAME_OP", "THREADS", "UNSEEN"}

// Variant says which form of its message a finding takes: the same id can
// arise in several ways (a handle that is null, unknown or freed).
type Variant int32

// The variants. Their C names are MPIDBG_V_ and the name in Variants.
const (
	VariantPlain         Variant = iota
	VariantNull                  // the handle is the null handle
	VariantUnknown               // no MPI call returned this handle
	VariantFreed                 // the object was freed
	VariantRecv                  // rank or tag of a receive (wildcards legal)
	VariantAnyTag                // MPI_ANY_TAG in a send
	VariantAnySource             // MPI_ANY_SOURCE in a send
	VariantInter                 // intercommunicator: the bound is the remote group's size
	VariantP2P                   // in-place: point-to-point, or not allowed in this call
	VariantNotRoot               // in-place: allowed at the root only
	VariantIntercomm             // in-place on an intercommunicator
	VariantNotPersistent         // MPI_Start on a request that is not persistent
	VariantInactive              // the request was completed or freed already
	VariantReads                 // buffer-overlap: this call reads what a pending one writes
	VariantWrites                // this call writes what a pending one reads
	VariantBothWrite             // both write
	VariantLoad                  // the access tracker saw a load of the program
	VariantStore                 // the access tracker saw a store of the program
	VariantChanged               // send-buffer-changed, buffer-access-latent: the cheap tier's comparison at completion
	VariantAccBasic              // rma-conflict: accumulates with different basic datatypes
	VariantAccOp                 // rma-conflict: accumulates with different operations
	VariantNegative              // invalid-argument: a constructor's count is negative
	VariantPairs                 // collective-type-mismatch: the blocks of a v/w collective do not pair up
	VariantNoTopology            // topology-mismatch: the communicator has no topology
	VariantCart                  // it has a Cartesian topology
	VariantGraph                 // a graph topology
	VariantDistGraph             // a distributed graph topology
	VariantNotInGroup            // rma-outside-epoch: the target is not in the MPI_Win_start group
	VariantRequestBased          // rma-outside-epoch: a request-based call outside a passive-target epoch
	VariantLock                  // epoch-lifecycle: an MPI_Win_lock epoch
	VariantLockAll               // an MPI_Win_lock_all epoch
	VariantStart                 // an MPI_Win_start access epoch
	VariantPost                  // an MPI_Win_post exposure epoch
	VariantFence                 // a fence epoch with RMA calls of this process
	VariantAccAlign              // rma-conflict: accumulates whose elements overlap at different displacements
	VariantAccNoOp               // rma-conflict: MPI_NO_OP against another op under accumulate_ops=same_op
	VariantLaterRecv             // message-race: the later receive is the one that fails under the other order
	VariantStarved               // message-race: under the other order a later receive waits for a message that never comes
	VariantTwice                 // request-active-start: MPI_Startall lists the request twice
)

// Variants names every Variant, in value order, for the C enum.
var Variants = []string{
	"PLAIN", "NULL", "UNKNOWN", "FREED", "RECV", "ANY_TAG", "ANY_SOURCE", "INTER", "P2P", "NOT_ROOT",
	"INTERCOMM", "NOT_PERSISTENT", "INACTIVE", "READS", "WRITES", "BOTH_WRITE", "LOAD", "STORE", "CHANGED",
	"ACC_BASIC", "ACC_OP", "NEGATIVE", "PAIRS", "NO_TOPOLOGY", "CART", "GRAPH", "DIST_GRAPH",
	"NOT_IN_GROUP", "REQUEST_BASED", "LOCK", "LOCK_ALL", "START", "POST", "FENCE",
	"ACC_ALIGN", "ACC_NO_OP", "LATER_RECV", "STARVED", "TWICE",
}

// HandleKind is the kind of MPI object a handle names, as the check that
// reports it knows it.
type HandleKind int32

// The handle kinds; C names MPIDBG_HK_ and the name in HandleKinds.
const (
	KindNone HandleKind = iota - 1
	KindType
	KindComm
	KindGroup
	KindOp
	KindWin
	KindRequest
)

// HandleKinds names every HandleKind from KindNone on, in value order.
var HandleKinds = []string{"NONE", "TYPE", "COMM", "GROUP", "OP", "WIN", "REQUEST"}

// RelatedKind says what happened at a finding's related place.
type RelatedKind int32

// The related kinds; C names MPIDBG_REL_ and the name in RelatedKinds.
const (
	RelatedNone        RelatedKind = iota
	RelatedStarted                 // the operation started there
	RelatedCreated                 // the object was created there
	RelatedFinalize                // MPI_Finalize was called there
	RelatedFreed                   // MPI_Type_free freed it there
	RelatedKeptCalling             // the rank kept calling that function there
	RelatedOpened                  // that call opened the one-sided epoch concerned there
	RelatedClosed                  // that call closed the one-sided epoch concerned there
	RelatedLaterRecv               // a later receive, the one the other order changes, was there
)

// RelatedKinds names every RelatedKind, in value order.
var RelatedKinds = []string{"NONE", "STARTED", "CREATED", "FINALIZE", "FREED", "KEPT_CALLING", "OPENED", "CLOSED", "LATER_RECV"}

// The access tracker's modes, as rma-origin-race and the buffer-race
// findings receive them in Val: what MPI does with the watched buffer.
const (
	ModeMPIReads  = 1 // MPI reads the buffer (a send, a Put's origin): the program's stores fault
	ModeMPIWrites = 2 // MPI writes the buffer (a receive, a Get's result): loads and stores fault
)

// Types is what a message needs to know of the reporting rank's datatypes
// and handles. The shim answers from its registry; tests answer from a
// table.
type Types interface {
	// Type describes a datatype handle.
	Type(h uint64) TypeInfo
	// ElementAt is the path of the element of count x h at addr that
	// covers the byte at, or "".
	ElementAt(h, addr uint64, count int64, at uint64) string
	// Collision is the first element of count x h (in type-map order)
	// that shares a byte with an earlier one, with that earlier one: both
	// paths, or "" when there is none or the search is too large.
	Collision(h uint64, count int64) (first, second string)
	// KindOf is the kind a handle's value says it is (MPICH's handles
	// carry it in their bits), or KindNone.
	KindOf(h uint64) HandleKind
}

// TypeInfo describes a datatype handle for a message.
type TypeInfo struct {
	// Text is a predefined type's name ("MPI_INT"), else the derived
	// type's constructor expression (cut to a readable length) or name.
	Text string
	// Site is where a derived type was made (0 unknown); Made says so
	// ("datatype row made here by MPI_Type_vector").
	Site uint64
	Made string
}

// MarshalText names the variant, for recorded events.
func (v Variant) MarshalText() ([]byte, error) { return enumText(Variants, int(v)) }

// UnmarshalText reads a variant's name.
func (v *Variant) UnmarshalText(b []byte) error { return enumParse(Variants, 0, b, (*int32)(v)) }

// MarshalText names the handle kind.
func (k HandleKind) MarshalText() ([]byte, error) { return enumText(HandleKinds, int(k-KindNone)) }

// UnmarshalText reads a handle kind's name.
func (k *HandleKind) UnmarshalText(b []byte) error {
	return enumParse(HandleKinds, int32(KindNone), b, (*int32)(k))
}

// MarshalText names the related kind.
func (k RelatedKind) MarshalText() ([]byte, error) { return enumText(RelatedKinds, int(k)) }

// UnmarshalText reads a related kind's name.
func (k *RelatedKind) UnmarshalText(b []byte) error {
	return enumParse(RelatedKinds, 0, b, (*int32)(k))
}

func enumText(names []string, i int) ([]byte, error) {
	if i < 0 || i >= len(names) {
		return nil, fmt.Errorf("value %d out of range (0..%d)", i, len(names)-1)
	}
	return []byte(names[i]), nil
}

func enumParse(names []string, first int32, b []byte, out *int32) error {
	for i, n := range names {
		if n == string(b) {
			*out = first + int32(i)
			return nil
		}
	}
	return fmt.Errorf("unknown name %q (want one of %v)", b, names)
}

// MarshalText names the access.
func (a Access) MarshalText() ([]byte, error) { return enumText(Accesses, int(a)) }

// UnmarshalText reads an access's name.
func (a *Access) UnmarshalText(b []byte) error { return enumParse(Accesses, 0, b, (*int32)(a)) }

// MarshalText names the epoch.
func (e Epoch) MarshalText() ([]byte, error) { return enumText(Epochs, int(e)) }

// UnmarshalText reads an epoch's name.
func (e *Epoch) UnmarshalText(b []byte) error { return enumParse(Epochs, 0, b, (*int32)(e)) }

// MarshalText names the call mode.
func (c CallMode) MarshalText() ([]byte, error) { return enumText(CallModes, int(c)) }

// UnmarshalText reads a call mode's name.
func (c *CallMode) UnmarshalText(b []byte) error { return enumParse(CallModes, 0, b, (*int32)(c)) }
