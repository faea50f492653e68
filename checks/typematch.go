package checks

// Type matching between ranks: a message's type signature against the
// receive that took it (shim/xr_p2p.c with the shim's engine, which
// compares signatures exactly).

var typeMismatch = register(Check{
	Entry: Entry{ID: "type-mismatch", Category: CatTypeMismatch, Severity: SevError,
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
	Message: detectorText,
})

var messageTruncated = register(Check{
	Entry: Entry{ID: "message-truncated", Category: CatTypeMismatch, Severity: SevError,
		Title: "a message is longer than the receive that takes it",
		Rule:  "MPI-4.1 §3.2.4: a message longer than the receive buffer is an overflow error (MPI_ERR_TRUNCATE)",
		Doc: `The receive's count and datatype describe fewer elements than the message
holds. MPI raises MPI_ERR_TRUNCATE (the default handler aborts the job);
with MPI_ERRORS_RETURN the buffer holds a prefix and the rest is lost.
mpidbg names both calls, the counts and datatypes on each side and the first
element the receive has no room for. Typical causes: a count of elements on
one side and of bytes on the other, or a receive sized for an older message
layout.`},
	Message: detectorText,
})
