package checks

import "fmt"

// Type matching between ranks: a message's type signature against the
// receive that took it (shim/xr_p2p.c with the shim's engine, which
// compares signatures exactly). The engine compares the two signatures
// where the receive completes and writes the message from a TypeMatch;
// the event carries it as Text and Path, with the sender as Remote[0].

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
	Message: typeMatchMessage,
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
	Message: typeMatchMessage,
})

// typeMatchMessage: the engine wrote the text (TypeMatch.Text) and the
// element path; Remote[0] is the sender. The receive's datatype is the
// argument at fault for a mismatch (the send's is related), its count for
// a truncation.
func typeMatchMessage(m *Message) {
	m.SetText(m.Text)
	m.SetPath(m.Path)
	if m.ID == "message-truncated" {
		m.Mark("recvcount", "count")
	} else {
		m.Mark("recvtype", "datatype")
	}
	if len(m.Remote) > 0 {
		m.RemoteText(0, "rank %d sent the message with %s", m.Remote[0].Rank, m.Remote[0].Call)
		if m.ID == "message-truncated" {
			m.MarkRemote(0, "sendcount", "count")
		} else {
			m.MarkRemote(0, "sendtype", "datatype")
		}
	}
}

// TypeMatch is what the engine found comparing a message's type
// signature with the receive that took it (MPI-4.1 §3.3.1).
type TypeMatch struct {
	Truncated          bool   // message-truncated, else type-mismatch
	SendRank, RecvRank int    // MPI_COMM_WORLD ranks
	SendCount          int64  // count x SendType sent
	SendType           string // the sender's datatype as words (its name, MPI_INT, an expression)
	RecvCount          int64
	RecvType           string
	// Element is the first element that differs (or has no room), Byte
	// its offset in the packed message.
	Element, Byte int64
	// SendPath and RecvPath name that element on each side (a type-tree
	// path, or "element 3 (MPI_INT)"); SendBasic and RecvBasic are its
	// basic types (MPI_DOUBLE).
	SendPath, RecvPath   string
	SendBasic, RecvBasic string
	// SendElements and SendBytes are what the message holds,
	// RecvElements what the receive has room for.
	SendElements, SendBytes, RecvElements int64
	// Fortran: the receive is a Fortran call, whose program counts
	// elements from 1 (the paths are in Fortran form too).
	Fortran bool
}

// Text writes the finding's message and element path.
func (t TypeMatch) Text() (msg, path string) {
	if t.Fortran {
		t.Element++
	}
	if t.Truncated {
		msg = fmt.Sprintf("rank %d sends %d element(s) (%d bytes packed: %d x %s) but the receive of rank %d has room for %d (%d x %s); the first element without room is element %d",
			t.SendRank, t.SendElements, t.SendBytes, t.SendCount, t.SendType, t.RecvRank, t.RecvElements, t.RecvCount, t.RecvType, t.Element)
		if t.SendPath != "" {
			msg += " (" + t.SendPath + ")"
		}
		return msg, t.SendPath
	}
	return fmt.Sprintf("rank %d sends %s where rank %d receives %s: element %d (packed byte %d) of the message is %s on the sending side and %s on the receiving side (%d x %s sent, %d x %s received)",
		t.SendRank, t.SendPath, t.RecvRank, t.RecvPath, t.Element, t.Byte, t.SendBasic, t.RecvBasic, t.SendCount, t.SendType, t.RecvCount, t.RecvType), t.RecvPath
}
