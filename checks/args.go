package checks

import "strings"

// The argument checks: a value MPI forbids, seen before the call reaches
// the MPI library (shim/roles.c fills the events). Arg names the argument,
// Val its value and Lim the bound it broke.

var negativeCount = register(Check{
	Entry: Entry{ID: "negative-count", Category: CatArgument, Severity: SevError,
		Title: "a count argument is negative",
		Rule:  "MPI-4.1 §3.2.2: count is a non-negative integer",
		Doc: `A count (or one of a v-collective's counts) below zero is never legal.
It usually comes from an unsigned size that wrapped or from an uninitialised
variable. MPICH rejects it with MPI_ERR_COUNT and, with the default error
handler, aborts the job; mpidbg reports where the value came from first.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		m.Printf("%s %d must be non-negative", m.Arg, m.Val)
	},
})

var invalidRank = register(Check{
	Entry: Entry{ID: "invalid-rank", Category: CatArgument, Severity: SevError,
		Title: "a destination or source rank is not a rank of the communicator",
		Rule:  "MPI-4.1 §3.2.3, §3.2.4, §3.11: dest is a rank of comm or MPI_PROC_NULL; source may also be MPI_ANY_SOURCE",
		Doc: `Ranks are numbered 0 .. size-1 in the communicator the call names, not in
MPI_COMM_WORLD. Typical causes: a neighbour computed without wrapping around
(rank+1 on the last rank), a rank of MPI_COMM_WORLD used on a
sub-communicator, or MPI_ANY_SOURCE passed to a send. Use MPI_PROC_NULL for
a missing neighbour: communication with it completes at once.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		switch {
		case m.Variant == VariantAnySource:
			m.Printf("%s is MPI_ANY_SOURCE, which only receives accept", m.Arg)
		case m.Variant == VariantInter:
			m.Printf("%s %d is not a rank of the intercommunicator's remote group (size %d), MPI_PROC_NULL or, for receives, MPI_ANY_SOURCE", m.Arg, m.Val, m.Lim)
		case m.Variant == VariantRecv:
			m.Printf("%s %d is not a rank of the communicator (size %d), MPI_PROC_NULL or MPI_ANY_SOURCE", m.Arg, m.Val, m.Lim)
		case strings.Contains(m.Arg, "rank"):
			m.Printf("%s %d is not a rank of the window's group (size %d) nor MPI_PROC_NULL", m.Arg, m.Val, m.Lim)
		default:
			m.Printf("%s %d is not a rank of the communicator (size %d) nor MPI_PROC_NULL", m.Arg, m.Val, m.Lim)
		}
	},
})

var invalidRoot = register(Check{
	Entry: Entry{ID: "invalid-root", Category: CatArgument, Severity: SevError,
		Title: "the root of a collective is not a rank of the communicator",
		Rule:  "MPI-4.1 §6.1: root is a rank of comm, the same on every process",
		Doc: `The root argument of MPI_Bcast, MPI_Reduce, MPI_Gather(v), MPI_Scatter(v)
and their nonblocking forms must be a valid rank of the (intra)communicator.
MPI_PROC_NULL and MPI_ROOT are only meaningful on intercommunicators.`},
	Message: func(m *Message) {
		m.Mark("root")
		if m.Variant == VariantInter {
			m.Printf("root %d is not MPI_ROOT, MPI_PROC_NULL or a rank of the remote group (size %d)", m.Val, m.Lim)
		} else {
			m.Printf("root %d is not a rank of the communicator (size %d)", m.Val, m.Lim)
		}
	},
})

var invalidTag = register(Check{
	Entry: Entry{ID: "invalid-tag", Category: CatArgument, Severity: SevError,
		Title: "a tag is outside 0 .. MPI_TAG_UB, or MPI_ANY_TAG is used in a send",
		Rule:  "MPI-4.1 §3.2.3: tags range from 0 to the value of the MPI_TAG_UB attribute; MPI_ANY_TAG only in receives (§3.2.4)",
		Doc: `MPI guarantees tags up to 32767; the real bound is the MPI_TAG_UB attribute
of MPI_COMM_WORLD (MPICH: 2^31-1 on most builds, less with some networks).
A negative tag other than MPI_ANY_TAG in a receive, or any negative tag in a
send, is erroneous.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		switch m.Variant {
		case VariantAnyTag:
			m.Printf("%s is MPI_ANY_TAG, which only receives accept", m.Arg)
		case VariantRecv:
			m.Printf("%s %d is outside 0..MPI_TAG_UB (%d) and not MPI_ANY_TAG", m.Arg, m.Val, m.Lim)
		default:
			m.Printf("%s %d is outside 0..MPI_TAG_UB (%d)", m.Arg, m.Val, m.Lim)
		}
	},
})

// nullBuffer: Count x Handle would hold Val bytes.
var nullBuffer = register(Check{
	Entry: Entry{ID: "null-buffer", Category: CatArgument, Severity: SevError,
		Title: "a NULL buffer is given for data that is not empty",
		Rule:  "MPI-4.1 §3.2.2: the buffer holds count elements of datatype starting at buf",
		Doc: `A NULL (or MPI_BOTTOM) buffer is legal only with a datatype whose
displacements are absolute addresses (built with MPI_Get_address). With a
relative datatype and a non-zero count, the MPI library reads or writes near
address 0 and the rank crashes, often far from the call. Typical cause: a
buffer allocated only on some ranks, or freed and set to NULL too early.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		m.Printf("%s is NULL but %d x %s hold %d bytes of data; NULL (MPI_BOTTOM) needs a datatype of absolute addresses",
			m.Arg, m.Count, m.Type(m.Handle), m.Val)
	},
})

// nullArray: Val is the number of entries needed.
var nullArray = register(Check{
	Entry: Entry{ID: "null-array", Category: CatArgument, Severity: SevError,
		Title: "a NULL array is given where the call reads one",
		Rule:  "MPI-4.1 §2.5.3: array arguments must hold as many entries as the count says",
		Doc: `Arrays of counts, displacements, datatypes or requests (MPI_Gatherv's
recvcounts at the root, MPI_Waitall's requests with a non-zero count, ...)
must be valid arrays. NULL is only allowed where the standard says the
argument is not significant (for example recvcounts on a non-root rank).`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		if m.Val > 1 {
			m.Printf("%s is NULL but %d entries are needed", m.Arg, m.Val)
		} else {
			m.Printf("%s is NULL", m.Arg)
		}
	},
})

var invalidHandle = register(Check{
	Entry: Entry{ID: "invalid-handle", Category: CatArgument, Severity: SevError,
		Title: "a communicator, group, operation, window or request handle is null or was never created",
		Rule:  "MPI-4.1 §2.5.1: handles must refer to existing objects; null handles are erroneous except where allowed",
		Doc: `A handle that is MPI_COMM_NULL (MPI_OP_NULL, MPI_WIN_NULL, ...) where an
object is needed, or a value that no MPI call returned (an uninitialised
variable, a handle from another process), makes the MPI library fail in
ways that depend on the implementation: an error with MPICH, a crash with
Open MPI whose handles are pointers.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		kind, null := handleWords(m.types.KindOf(m.Handle), m.Kind)
		switch m.Variant {
		case VariantNull:
			m.Printf("%s is %s", m.Arg, null)
		case VariantFreed:
			m.Printf("%s %#x is %s that was freed", m.Arg, m.Handle, article(kind))
		default:
			m.Printf("%s %#x is not %s any MPI call returned", m.Arg, m.Handle, article(kind))
		}
	},
})

// handleWords names the kind of object a handle is, and its null handle:
// by what the handle's value says (MPICH's handles carry their kind,
// which may not be the kind the argument wants), else by the kind the
// check that reported it says (an Open MPI handle is an address).
func handleWords(byValue, byCheck HandleKind) (kind, null string) {
	k := byValue
	if k == KindNone {
		k = byCheck
	}
	switch k {
	case KindType:
		return "datatype", "MPI_DATATYPE_NULL"
	case KindComm:
		return "communicator", "MPI_COMM_NULL"
	case KindGroup:
		return "group", "MPI_GROUP_NULL"
	case KindOp:
		return "operation", "MPI_OP_NULL"
	case KindWin:
		return "window", "MPI_WIN_NULL"
	case KindRequest:
		return "request", "MPI_REQUEST_NULL"
	}
	return "handle", "a null handle"
}

// article puts "a" or "an" before a kind of handle.
func article(kind string) string {
	if strings.ContainsAny(kind[:1], "aeiou") {
		return "an " + kind
	}
	return "a " + kind
}

// inPlaceMisuse: Val is the rank, for VariantNotRoot.
var inPlaceMisuse = register(Check{
	Entry: Entry{ID: "in-place-misuse", Category: CatArgument, Severity: SevError,
		Title: "MPI_IN_PLACE is used where the call does not allow it",
		Rule:  "MPI-4.1 §6.2.2: MPI_IN_PLACE is allowed only in the argument and on the ranks each collective names",
		Doc: `MPI_IN_PLACE is a marker, not a buffer. It is never valid in point-to-point
calls, and in collectives only in the send buffer (or, for MPI_Gather(v) and
MPI_Scatter(v), in the argument named for the root, on the root).`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		switch m.Variant {
		case VariantNotRoot:
			m.Printf("%s is MPI_IN_PLACE on rank %d, which is not the root: only the root may pass it", m.Arg, m.Val)
		case VariantIntercomm:
			m.Printf("%s is MPI_IN_PLACE on an intercommunicator, where collectives have no in-place form", m.Arg)
		default:
			m.Printf("%s is MPI_IN_PLACE, which %s does not accept", m.Arg, m.Call)
		}
	},
})

// invalidArgument: Text is the datatype model's rule and the values
// (shim/hooks.c asks the model); with VariantNegative, Text is the
// constructor, Arg the count and Val its value.
var invalidArgument = register(Check{
	Entry: Entry{ID: "invalid-argument", Category: CatArgument, Severity: SevError,
		Title: "a datatype constructor argument breaks the constructor's rule",
		Rule:  "MPI-4.1 §5.1.2-§5.1.7: the rules of each type constructor",
		Doc: `Negative block lengths, ndims below 1, subarray starts outside the array,
a darray process grid that does not multiply to size, and the like. The
message names the argument, its value and the rule.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		if m.Variant == VariantNegative {
			m.Printf("%s: %s %d must be non-negative", m.Text, m.Arg, m.Val)
			return
		}
		m.Printf("%s", m.Text)
	},
})

// invalidWindowMemory (shim/hooks.c, before MPI_Win_create,
// MPI_Win_allocate and MPI_Win_allocate_shared): Arg is the argument that
// describes no window memory, Val its value; for "base", Val is the size.
var invalidWindowMemory = register(Check{
	Entry: Entry{ID: "invalid-window-memory", Category: CatArgument, Severity: SevError,
		Title: "the memory a window is made of is not valid: a negative size, a displacement unit below 1, or no base for a non-zero size",
		Rule:  "MPI-4.1 §12.2.1, §12.2.2, §12.2.3: size is a non-negative integer, disp_unit a positive one; the window is the size bytes starting at base",
		Doc: `Every process gives MPI_Win_create the memory it exposes: size bytes from
base. A process that exposes nothing passes size 0 (base may then be NULL);
NULL with a non-zero size names the bytes at address 0, which no process
owns, and the first MPI_Put or MPI_Get to that process fails far from the
call, often as a segmentation fault inside the MPI library:

    MPI_Win_create(rank == 0 ? table : NULL, n * sizeof(double), ...)

should give rank == 0 ? n * sizeof(double) : 0 as the size. A negative size
(a byte count that overflowed an int) or a disp_unit of 0 (a sizeof of an
empty type, an uninitialised variable) is refused by the MPI library, whose
default error handler aborts the job.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		switch m.Arg {
		case "base":
			m.Printf("base is NULL but size is %d bytes: the window would be the bytes at address 0, which this process does not own; a process that exposes no memory passes size 0", m.Val)
		case "disp_unit":
			m.Printf("disp_unit %d must be positive", m.Val)
		default:
			m.Printf("%s %d must be non-negative", m.Arg, m.Val)
		}
	},
})
