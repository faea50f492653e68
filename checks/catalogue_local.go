package checks

// The findings a rank can see alone: arguments, object lifecycles, leaks
// and buffer overlap.
func init() {
	register(
		Entry{ID: "negative-count", Category: CatArgument, Severity: SevError,
			Title: "a count argument is negative",
			Rule:  "MPI-4.1 §3.2.2: count is a non-negative integer",
			Doc: `A count (or one of a v-collective's counts) below zero is never legal.
It usually comes from an unsigned size that wrapped or from an uninitialised
variable. MPICH rejects it with MPI_ERR_COUNT and, with the default error
handler, aborts the job; mpidbg reports where the value came from first.`},
		Entry{ID: "invalid-rank", Category: CatArgument, Severity: SevError,
			Title: "a destination or source rank is not a rank of the communicator",
			Rule:  "MPI-4.1 §3.2.3, §3.2.4, §3.11: dest is a rank of comm or MPI_PROC_NULL; source may also be MPI_ANY_SOURCE",
			Doc: `Ranks are numbered 0 .. size-1 in the communicator the call names, not in
MPI_COMM_WORLD. Typical causes: a neighbour computed without wrapping around
(rank+1 on the last rank), a rank of MPI_COMM_WORLD used on a
sub-communicator, or MPI_ANY_SOURCE passed to a send. Use MPI_PROC_NULL for
a missing neighbour: communication with it completes at once.`},
		Entry{ID: "invalid-root", Category: CatArgument, Severity: SevError,
			Title: "the root of a collective is not a rank of the communicator",
			Rule:  "MPI-4.1 §6.1: root is a rank of comm, the same on every process",
			Doc: `The root argument of MPI_Bcast, MPI_Reduce, MPI_Gather(v), MPI_Scatter(v)
and their nonblocking forms must be a valid rank of the (intra)communicator.
MPI_PROC_NULL and MPI_ROOT are only meaningful on intercommunicators.`},
		Entry{ID: "invalid-tag", Category: CatArgument, Severity: SevError,
			Title: "a tag is outside 0 .. MPI_TAG_UB, or MPI_ANY_TAG is used in a send",
			Rule:  "MPI-4.1 §3.2.3: tags range from 0 to the value of the MPI_TAG_UB attribute; MPI_ANY_TAG only in receives (§3.2.4)",
			Doc: `MPI guarantees tags up to 32767; the real bound is the MPI_TAG_UB attribute
of MPI_COMM_WORLD (MPICH: 2^31-1 on most builds, less with some networks).
A negative tag other than MPI_ANY_TAG in a receive, or any negative tag in a
send, is erroneous.`},
		Entry{ID: "null-buffer", Category: CatArgument, Severity: SevError,
			Title: "a NULL buffer is given for data that is not empty",
			Rule:  "MPI-4.1 §3.2.2: the buffer holds count elements of datatype starting at buf",
			Doc: `A NULL (or MPI_BOTTOM) buffer is legal only with a datatype whose
displacements are absolute addresses (built with MPI_Get_address). With a
relative datatype and a non-zero count, the MPI library reads or writes near
address 0 and the rank crashes, often far from the call. Typical cause: a
buffer allocated only on some ranks, or freed and set to NULL too early.`},
		Entry{ID: "null-array", Category: CatArgument, Severity: SevError,
			Title: "a NULL array is given where the call reads one",
			Rule:  "MPI-4.1 §2.5.3: array arguments must hold as many entries as the count says",
			Doc: `Arrays of counts, displacements, datatypes or requests (MPI_Gatherv's
recvcounts at the root, MPI_Waitall's requests with a non-zero count, ...)
must be valid arrays. NULL is only allowed where the standard says the
argument is not significant (for example recvcounts on a non-root rank).`},
		Entry{ID: "invalid-handle", Category: CatArgument, Severity: SevError,
			Title: "a communicator, group, operation, window or request handle is null or was never created",
			Rule:  "MPI-4.1 §2.5.1: handles must refer to existing objects; null handles are erroneous except where allowed",
			Doc: `A handle that is MPI_COMM_NULL (MPI_OP_NULL, MPI_WIN_NULL, ...) where an
object is needed, or a value that no MPI call returned (an uninitialised
variable, a handle from another process), makes the MPI library fail in
ways that depend on the implementation: an error with MPICH, a crash with
Open MPI whose handles are pointers.`},
		Entry{ID: "in-place-misuse", Category: CatArgument, Severity: SevError,
			Title: "MPI_IN_PLACE is used where the call does not allow it",
			Rule:  "MPI-4.1 §6.2.2: MPI_IN_PLACE is allowed only in the argument and on the ranks each collective names",
			Doc: `MPI_IN_PLACE is a marker, not a buffer. It is never valid in point-to-point
calls, and in collectives only in the send buffer (or, for MPI_Gather(v) and
MPI_Scatter(v), in the argument named for the root, on the root).`},
		Entry{ID: "invalid-argument", Category: CatArgument, Severity: SevError,
			Title: "a datatype constructor argument breaks the constructor's rule",
			Rule:  "MPI-4.1 §5.1.2-§5.1.7: the rules of each type constructor",
			Doc: `Negative block lengths, ndims below 1, subarray starts outside the array,
a darray process grid that does not multiply to size, and the like. The
message names the argument, its value and the rule.`},

		Entry{ID: "type-null", Category: CatDatatypeLifecycle, Severity: SevError,
			Title: "MPI_DATATYPE_NULL is used as a datatype",
			Rule:  "MPI-4.1 §5.1: MPI_DATATYPE_NULL is not a datatype",
			Doc: `A datatype variable still holds MPI_DATATYPE_NULL: it was never set, or it
was freed (MPI_Type_free sets the handle to MPI_DATATYPE_NULL) and used
again.`},
		Entry{ID: "type-unknown", Category: CatDatatypeLifecycle, Severity: SevError,
			Title: "a datatype handle that no MPI call returned",
			Rule:  "MPI-4.1 §2.5.1: handles must refer to existing objects",
			Doc: `The value is neither a predefined datatype nor one the program created:
typically an uninitialised MPI_Datatype variable.`},
		Entry{ID: "type-not-committed", Category: CatDatatypeLifecycle, Severity: SevError,
			Title: "a derived datatype is used for communication before MPI_Type_commit",
			Rule:  "MPI-4.1 §5.1.9: a datatype object has to be committed before it can be used in a communication",
			Doc: `Constructors make a datatype that can build other datatypes; only
MPI_Type_commit makes it usable in communication, packing and RMA. Commit
the type you communicate with (the outermost one); inner types need no
commit.`},
		Entry{ID: "type-freed", Category: CatDatatypeLifecycle, Severity: SevError,
			Title: "a datatype is used after MPI_Type_free",
			Rule:  "MPI-4.1 §5.1.9: MPI_TYPE_FREE marks the datatype for deallocation and sets the handle to MPI_DATATYPE_NULL",
			Doc: `After MPI_Type_free the handle is dead: operations already started with it
complete normally, and types built from it stay valid, but a new call with
the old handle value (kept in another variable) is erroneous, and MPI may
have given the same value to a new type.`},
		Entry{ID: "type-double-free", Category: CatDatatypeLifecycle, Severity: SevError,
			Title: "a datatype is freed twice",
			Rule:  "MPI-4.1 §5.1.9: MPI_TYPE_FREE on a handle that no longer refers to a datatype is erroneous",
			Doc:   `The same datatype was passed to MPI_Type_free twice, through two copies of the handle.`},
		Entry{ID: "type-free-predefined", Category: CatDatatypeLifecycle, Severity: SevError,
			Title: "a predefined datatype is freed",
			Rule:  "MPI-4.1 §5.1.9: predefined datatypes cannot be freed",
			Doc:   `MPI_INT, MPI_DOUBLE and the other predefined datatypes belong to the MPI library.`},
		Entry{ID: "commit-predefined", Category: CatDatatypeLifecycle, Severity: SevWarning,
			Title: "MPI_Type_commit is called on a predefined datatype",
			Rule:  "MPI-4.1 §5.1.9: predefined datatypes are committed already",
			Doc: `Harmless, but it usually means the program commits the wrong variable, for
example the old type instead of the new one.`},
		Entry{ID: "commit-twice", Category: CatDatatypeLifecycle, Severity: SevWarning,
			Title: "a datatype is committed again",
			Rule:  "MPI-4.1 §5.1.9: committing a committed datatype has no effect",
			Doc: `Harmless, but a sign that the program's datatype setup runs more often than
intended (for example inside a time-step loop).`},

		Entry{ID: "request-unknown", Category: CatRequestLifecycle, Severity: SevError,
			Title: "a request handle that no operation made, or that was already completed",
			Rule:  "MPI-4.1 §3.7.3: completion calls take requests returned by nonblocking or persistent calls",
			Doc: `Completing a nonblocking request sets the variable to MPI_REQUEST_NULL; a
copy of the old value kept elsewhere is dead. Waiting on it, or on an
uninitialised request variable, is erroneous (MPI_REQUEST_NULL itself is
allowed and returns at once).`},
		Entry{ID: "request-active-start", Category: CatRequestLifecycle, Severity: SevError,
			Title: "MPI_Start on a persistent request that is still active",
			Rule:  "MPI-4.1 §3.9: it is erroneous to call MPI_START for a request that is already active",
			Doc: `A persistent request must be completed (MPI_Wait, MPI_Test returning true)
before it is started again.`},
		Entry{ID: "request-overwritten", Category: CatRequestLifecycle, Severity: SevError,
			Title: "a new operation's request overwrites a request that is still active",
			Rule:  "MPI-4.1 §3.7.3: every nonblocking operation must be completed",
			Doc: `The request variable still held an active request when it was passed to a
new nonblocking call: the old operation can no longer be completed, its
buffer stays in use by MPI, and its request leaks.`},
		Entry{ID: "request-never-completed", Category: CatRequestLifecycle, Severity: SevError,
			Title: "a nonblocking operation was never completed before MPI_Finalize",
			Rule:  "MPI-4.1 §11.2.2: all pending communication must be completed before MPI_FINALIZE",
			Doc: `An operation started with MPI_Isend, MPI_Irecv, MPI_Start, a nonblocking
collective, ... had no successful MPI_Wait/MPI_Test (or MPI_Request_free).
Until completion the buffer belongs to MPI, and MPI_Finalize may hang or
lose the message.`},

		Entry{ID: "leak-type", Category: CatLeak, Severity: SevWarning,
			Title: "a derived datatype was never freed",
			Rule:  "MPI-4.1 §5.1.9: derived datatypes are freed with MPI_TYPE_FREE",
			Doc:   `Not an error at MPI_Finalize, but in long runs types created in a loop exhaust memory.`},
		Entry{ID: "leak-comm", Category: CatLeak, Severity: SevWarning,
			Title: "a communicator was never freed",
			Rule:  "MPI-4.1 §7.4.3: communicators are freed with MPI_COMM_FREE",
			Doc:   `Communicators hold context ids, of which MPI libraries have a few thousand; a communicator made per iteration runs out.`},
		Entry{ID: "leak-group", Category: CatLeak, Severity: SevWarning,
			Title: "a group was never freed",
			Rule:  "MPI-4.1 §7.3.3: groups are freed with MPI_GROUP_FREE",
			Doc:   `MPI_Comm_group and the group constructors return new groups that must be freed.`},
		Entry{ID: "leak-op", Category: CatLeak, Severity: SevWarning,
			Title: "a user-defined reduction operation was never freed",
			Rule:  "MPI-4.1 §6.9.5: user operations are freed with MPI_OP_FREE",
			Doc:   `Not an error at MPI_Finalize; listed so that long-running codes can find it.`},
		Entry{ID: "leak-win", Category: CatLeak, Severity: SevWarning,
			Title: "an RMA window was never freed",
			Rule:  "MPI-4.1 §12.2.5: windows are freed with MPI_WIN_FREE, collectively",
			Doc:   `A window keeps its memory registered with the network and its communicator alive.`},
		Entry{ID: "leak-request", Category: CatLeak, Severity: SevWarning,
			Title: "an inactive persistent request was never freed",
			Rule:  "MPI-4.1 §3.9: persistent requests are freed with MPI_REQUEST_FREE",
			Doc:   `A persistent request that is not active at MPI_Finalize is not an error, but it was never released.`},

		Entry{ID: "recv-type-overlap", Category: CatOverlap, Severity: SevError,
			Title: "a receive uses a datatype whose entries overlap",
			Rule:  "MPI-4.1 §5.1.11: a datatype with overlapping entries must not be used in a receive",
			Doc: `Two elements of the receive buffer's type map share bytes, so the received
message would write the same memory twice, in an order MPI does not define.
With a count above one, overlap also arises between consecutive elements
when the extent is smaller than the data (a resized type): the message
names the first pair of elements that collide and their type-tree paths.`},
		Entry{ID: "buffer-overlap", Category: CatOverlap, Severity: SevError,
			Title: "the buffer of a new operation overlaps the buffer of an operation still in progress, and one of them receives",
			Rule:  "MPI-4.1 §3.7.2: a receive buffer must not be accessed, and a send buffer not written, until the operation completes",
			Doc: `A pending MPI_Irecv (or nonblocking collective, or persistent receive)
owns its buffer until it completes. A second operation that writes into the
same bytes, or reads bytes the first will write, races with it: the result
depends on timing and on the MPI library. Only bytes the datatypes actually
touch count, so interleaved strided buffers (halo columns) are fine.`},
		Entry{ID: "send-recv-overlap", Category: CatOverlap, Severity: SevError,
			Title: "the send and receive buffers of one call overlap",
			Rule:  "MPI-4.1 §3.10 (MPI_SENDRECV: the send and receive buffers must be disjoint) and §2.3 (OUT arguments must not alias other arguments); use MPI_IN_PLACE for in-place collectives",
			Doc: `MPI_Sendrecv, and collectives such as MPI_Allreduce or MPI_Alltoall, read
the send buffer while they write the receive buffer. Passing overlapping
buffers works with some algorithms and corrupts data with others. Use
MPI_Sendrecv_replace, or MPI_IN_PLACE in the collective.`},
	)
}
