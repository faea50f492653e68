package checks

// The findings no rank can see alone: they need what another rank did
// (the sender's datatype, the other ranks' collective) or the whole job's
// state (who waits for whom, what was never received).
func init() {
	register(
		Entry{ID: "type-mismatch", Category: CatTypeMismatch, Severity: SevError,
			Title: "a message's type signature does not match the receive's",
			Rule:  "MPI-4.1 §3.3.1: the type signature of the send must match that of the receive, basic type for basic type; MPI_BYTE matches only MPI_BYTE, MPI_PACKED matches any type (§5.2)",
			Doc: `The sender describes its data with one datatype and the receiver with
another; MPI copies bytes and never checks that they mean the same thing, so
a double arrives as two ints or a struct's fields shift. mpidbg compares the
two type signatures element by element (never a hash) and names the first
element that differs on each side as a type-tree path:

    rank 0 sends t_a(STRUCT)[2](DOUBLE) where rank 1 receives t_b(STRUCT)[2](INT)

A message shorter than the receive buffer is legal (the receive takes a
prefix, MPI-4.1 §3.2.4); one that is longer is message-truncated. Fix the
datatype on one side, or build both from one function.`},
		Entry{ID: "message-truncated", Category: CatTypeMismatch, Severity: SevError,
			Title: "a message is longer than the receive that takes it",
			Rule:  "MPI-4.1 §3.2.4: a message longer than the receive buffer is an overflow error (MPI_ERR_TRUNCATE)",
			Doc: `The receive's count and datatype describe fewer elements than the message
holds. MPI raises MPI_ERR_TRUNCATE (the default handler aborts the job);
with MPI_ERRORS_RETURN the buffer holds a prefix and the rest is lost.
mpidbg names both calls, the counts and datatypes on each side and the first
element the receive has no room for. Typical causes: a count of elements on
one side and of bytes on the other, or a receive sized for an older message
layout.`},
		Entry{ID: "collective-mismatch", Category: CatCollective, Severity: SevError,
			Title: "the ranks of a communicator call different collectives at the same point",
			Rule:  "MPI-4.1 §6.1: all processes of the group must call the same collective operations on a communicator in the same order; a blocking call never matches a nonblocking one (§6.12)",
			Doc: `Collectives match by order on each communicator: the n-th collective of
one rank meets the n-th collective of every other. If rank 0 calls
MPI_Barrier while rank 1 calls MPI_Bcast, or one rank calls MPI_Allreduce
and another MPI_Iallreduce, the job hangs or computes garbage depending on
the algorithms. The report lists which ranks called what, and where. The
usual cause is a collective inside a branch that only some ranks take.`},
		Entry{ID: "collective-root-mismatch", Category: CatCollective, Severity: SevError,
			Title: "the ranks of a rooted collective give different roots",
			Rule:  "MPI-4.1 §6.1: the root argument must have the same value on all processes",
			Doc: `MPI_Bcast, MPI_Reduce, MPI_Gather(v), MPI_Scatter(v) and their nonblocking
and persistent forms need the same root on every rank. With different roots
data goes to the wrong place or the job hangs.`},
		Entry{ID: "collective-op-mismatch", Category: CatCollective, Severity: SevError,
			Title: "the ranks of a reduction give different operations",
			Rule:  "MPI-4.1 §6.9.1: the op argument must be the same on all processes",
			Doc: `Every rank of a reduction (MPI_Reduce, MPI_Allreduce, MPI_Scan, MPI_Exscan,
MPI_Reduce_scatter...) must pass the same operation; which one MPI applies
where is otherwise undefined.`},
		Entry{ID: "collective-type-mismatch", Category: CatCollective, Severity: SevError,
			Title: "the amounts or type signatures of a collective differ between ranks",
			Rule:  "MPI-4.1 §6.1: the amount of data sent must equal the amount received, pairwise between each process and the root; type signatures must match exactly (no partial receive)",
			Doc: `Unlike point-to-point, a collective's receive may not take a prefix: each
block sent must match the block received at the other end, element by
element. For the v and w variants every count and datatype pair is
compared with its partner on the other rank. The report names the ranks and
the counts and datatypes on each side.`},
		Entry{ID: "deadlock", Category: CatDeadlock, Severity: SevError,
			Title: "the job stopped making progress: every rank waits for another",
			Rule:  "MPI-4.1 §3.5 (progress) and §6.14 (a correct program must not deadlock whether collectives synchronize or not)",
			Doc: `Every rank that has not finished is blocked in an MPI call that only another
blocked rank could complete. mpidbg shows the wait-for graph (MPI_Waitall
waits for all its requests: AND; MPI_Waitany and MPI_ANY_SOURCE receives for
any one: OR), the cycle or knot that closes it, and for each blocked rank
its call, arguments and stack. Then it ends the job (or, with
--on-error=stop, leaves the ranks stopped for a debugger). Common causes:
two ranks that both receive first, collectives in a different order, a
collective that one rank skips, a receive for a message nobody sends.`},
		Entry{ID: "potential-deadlock", Category: CatDeadlock, Severity: SevWarning,
			Title: "the job completes only because MPI buffers a standard-mode send",
			Rule:  "MPI-4.1 §3.5: a standard-mode send may block until the matching receive is posted; a program that relies on buffering is unsafe",
			Doc: `With --buffering=zero mpidbg makes every standard-mode send synchronous, as
an MPI library with no buffer space may. A program that then deadlocks
(typically: every rank sends to its neighbour before receiving) works today
only because the messages are small enough to be sent eagerly; larger
messages, another MPI or another network will hang it. Use MPI_Sendrecv,
nonblocking receives posted first, or an ordering that alternates.`},
		Entry{ID: "message-race", Category: CatMessageRace, Severity: SevWarning,
			Title: "a wildcard receive could have matched another message: the result depends on timing",
			Rule:  "MPI-4.1 §3.5: with MPI_ANY_SOURCE (or MPI_ANY_TAG) the message matched depends on arrival order, which MPI does not fix",
			Doc: `A receive with MPI_ANY_SOURCE took the message of one rank while another
rank's message, sent concurrently (not ordered after the receive by any
chain of messages), could have matched it instead. On another run, machine
or network the other message may win, and the program computes something
else or hangs. mpidbg tracks happens-before with logical clocks carried
alongside the program's messages and names both candidate senders. Receives
whose tag or communicator tells the messages apart are not races.`},
		Entry{ID: "lost-message", Category: CatLostMessage, Severity: SevWarning,
			Title: "a message was sent but never received before MPI_Finalize",
			Rule:  "MPI-4.1 §11.2.2: before MPI_Finalize a process must complete its involvement in all communication; a message nobody receives is never delivered",
			Doc: `The send completed (the message was buffered), but no receive on the
destination ever matched it. The data is lost, and with a larger message
the sender would have hung. The report names the sender's call site, the
destination, the tag and the communicator.`},
	)
}
