package checks

import (
	"fmt"
	"strings"
)

// Buffer races: a load or store of the program that touches a buffer a
// nonblocking operation still owns (shim/track*.c, the access tracker).
// Count x Handle at Addr is the buffer and At the byte touched; the
// variant says load or store; Val is the tracker's mode (ModeMPIReads for
// a send buffer, ModeMPIWrites for a receive buffer).

// bufferDone is what completes a nonblocking operation, for the messages.
const bufferDone = "MPI_Wait or a successful MPI_Test"

// sendSide names the operation of a buffer MPI reads: a send, or a
// nonblocking write to a file (MPI_File_iwrite and its kin), whose rule
// is the I/O chapter's, which the report then cites.
func sendSide(m *Message) (buf, op string) {
	if strings.HasPrefix(m.RelatedCall, "MPI_File_") {
		m.SetRule("MPI-4.1 §14.4.1: it is erroneous to access the local buffer of a nonblocking data access operation between the initiation and the completion of the operation")
		return "write buffer", "write"
	}
	return "send buffer", "send"
}

var sendBufferWrite = register(Check{
	Entry: Entry{ID: "send-buffer-write", Access: true, Category: CatBufferRace, Severity: SevError,
		Title: "the program wrote to the buffer of a send that MPI had not sent yet",
		Rule:  "MPI-4.1 §3.7.2: the sender must not modify any part of the send buffer after a nonblocking send operation is called, until the send completes",
		Doc: `A nonblocking send (MPI_Isend, MPI_Ibsend, MPI_Issend, MPI_Irsend, a started
persistent send, the send buffer of a nonblocking collective) owns its
buffer until MPI_Wait or MPI_Test says it is complete; so does a
nonblocking write to a file (MPI_File_iwrite and its kin, MPI-4.1
§14.4.1), whose report says so and cites that rule. The program stored
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
Loop sites are sampled after their first operations. On a stack buffer's
first page, which also holds the frames of the calls made below it, the
tracker watches the buffer's bytes with the CPU's debug registers instead
(up to 32 bytes, four registers per thread, or the first 16 bytes of a
larger buffer); the bytes they cannot hold are checked by
send-buffer-changed instead (docs/races.md).`},
	Message: func(m *Message) {
		m.MarkRelated(buffer(m.RelatedCall, "S"))
		buf, op := sendSide(m)
		m.Printf("store to the %s%s before the %s completed: MPI may read the buffer until %s completes it", buf, accessWhere(m), op, bufferDone)
	},
})

var recvBufferAccess = register(Check{
	Entry: Entry{ID: "recv-buffer-access", Access: true, Category: CatBufferRace, Severity: SevError,
		Title: "the program read or wrote the buffer of a receive before it completed",
		Rule:  "MPI-4.1 §3.7.2: the receiver must not access any part of the receive buffer after a nonblocking receive operation is called, until the receive completes",
		Doc: `A nonblocking receive (MPI_Irecv, MPI_Imrecv, a started persistent receive,
the receive buffer of a nonblocking collective) owns its buffer until a
completion call (MPI_Wait, MPI_Test with flag true, and their variants)
says it is complete. The program loaded from or stored to that buffer
before that, and before the tracker saw MPI write the data: a load may
see stale data, a store may be overwritten by the message (or overwrite
it).

mpidbg makes the pages of a pending receive buffer inaccessible and checks
each fault against the bytes of the buffer's datatype. The report names
the access (load or store) and its file:line, the receive as the related
location, the offset and the element touched. Call MPI_Wait (or test
until the flag is true) before using the buffer.

When the tracker saw the data arrive first (MPI wrote the buffer inside
an earlier MPI call, or inside MPI_Irecv, MPI_Imrecv or the MPI_Start of
a persistent receive itself when the message was there already), the
same access is buffer-access-latent. The tracker does not see every
move. The receive half of MPI_Isendrecv is filled inside that call
before the tracker watches the buffer, and so is a nonblocking
collective's result complete at its start (docs/races.md lists the
cases). And a page the tracker leaves open during an MPI call hides
MPI's writes there: it does so when MPI touches other data on the
buffer's page (an object next to a small heap buffer, Open MPI's
MPI_COMM_WORLD next to a static array), for the rest of that call or for
good after a few such calls, and when the program's own accesses to
other data on the page fault too often. The access is then reported
here, right by chance or not; in the second case the message says that
whether the data had arrived is not known.

A receive buffer's bytes on the first page of a stack buffer (where the
frames of calls are written) are watched with the CPU's debug registers,
up to 32 bytes while one of a thread's four is free; beyond that they are
not watched, and there is no copy-and-compare tier for receives
(docs/races.md).`},
	Message: func(m *Message) {
		m.MarkRelated(buffer(m.RelatedCall, "R"))
		// The tracker knows the data had moved only when it saw MPI
		// write it (buffer-access-latent); what it did not see is said
		// as such.
		arrived := " and before MPI was seen writing the data"
		if m.Flags&FlagUnseen != 0 {
			arrived = " (whether the data had arrived is not known: the tracker had left the buffer's page open during an MPI call meanwhile)"
		}
		m.Printf("%s the receive buffer%s before the receive completed%s; MPI may write the buffer until %s completes it", accessVerb(m), accessWhere(m), arrived, bufferDone)
	},
})

var bufferAccessLatent = register(Check{
	Entry: Entry{ID: "buffer-access-latent", Access: true, Category: CatBufferRace, Severity: SevWarning,
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
started and MPI said so (MPICH hands back its builtin request for a small
eager send), and then the program's access. A send's data counts as moved
only in the second case: the library reads a write-protected buffer
without faulting. A request that is never completed at all (no MPI_Wait)
lands here too, with request-never-completed at MPI_Finalize.

A send whose small buffer the cheap tier copied (see send-buffer-changed)
and that completed when it started is reported here too when the copy
differs at the completion call: the change came after MPI had the data,
the report is at the completion call (the store itself was not seen), and
its severity is the same as when page protection sees the store.`},
	Message: func(m *Message) {
		m.MarkRelated(trackedBuffer(m))
		if m.Variant == VariantChanged {
			buf, op := sendSide(m)
			m.Printf("the %s (%d x %s) of the %s completed here changed while the %s was pending%s, after MPI had taken the data when the %s started: correct here by chance, erroneous wherever MPI reads the buffer later", buf, m.Count, m.Type(m.Handle), m.RelatedCall, op, changedWhere(m), op)
			return
		}
		where := accessWhere(m)
		if m.Val == ModeMPIWrites {
			m.Printf("%s the receive buffer%s after the data arrived but before %s completed the receive: correct here by chance, erroneous wherever the data arrives later", accessVerb(m), where, bufferDone)
			return
		}
		buf, op := sendSide(m)
		m.Printf("%s the %s%s after MPI had taken the data but before %s completed the %s: correct here by chance, erroneous wherever MPI reads the buffer later", accessVerb(m), buf, where, bufferDone, op)
	},
})

// accessWhere places the access in the buffer, and sets the element path.
func accessWhere(m *Message) string {
	m.SetPath(m.ElementAt(m.Handle, m.Addr, m.Count, m.At))
	where := fmt.Sprintf(" (%d x %s)", m.Count, m.Type(m.Handle))
	if m.Addr != 0 {
		where += fmt.Sprintf(" at offset %d", int64(m.At-m.Addr))
	}
	if p := m.path; p != "" {
		where += ", element " + p + ","
	}
	return where
}

// trackedBuffer names the buffer parameter of the call that started the
// operation (RelatedCall): the one MPI writes when the tracker's mode is
// ModeMPIWrites, else the one it reads.
func trackedBuffer(m *Message) string {
	if m.Val == ModeMPIWrites {
		return buffer(m.RelatedCall, "R")
	}
	return buffer(m.RelatedCall, "S")
}

func accessVerb(m *Message) string {
	if m.Variant == VariantStore {
		return "store to"
	}
	return "load from"
}

// sendBufferChanged: the cheap tier found the copy it took at the start
// of a send (RelatedCall) different at its completion; At is the first
// changed byte.
var sendBufferChanged = register(Check{
	Entry: Entry{ID: "send-buffer-changed", Access: true, Category: CatBufferRace, Severity: SevError,
		Title: "a pending send buffer changed between the send and its completion",
		Rule:  "MPI-4.1 §3.7.2: the send buffer must not be modified until the send completes",
		Doc: `The cheap tier of the access tracker: every contiguous send buffer of up to
256 bytes (a predefined datatype) is copied when the send starts and
compared at the completion call, and so are the bytes on the first page
of a stack buffer that the debug registers cannot hold (the whole buffer
when it is at most a page, else that page's part; a nonblocking file
write's buffer alike). A difference means the program stored
into the buffer while MPI owned it. This tier cannot see the store itself,
so the report is at the completion call and names the send and the first
element that changed. It covers what the tracker does not watch: the bytes
on a stack buffer's first page (every call writes there, so that page is
never protected) when the thread's debug registers are taken, operations
the sampling skipped, pages the tracker gave up on. A store that page protection
caught is not reported again here, nor is a buffer a later receive of MPI
writes into (buffer-overlap reports that), nor a send freed with
MPI_Request_free before it completed. Receives have no such tier: their
content is the message's, not the program's. A send that completed when
it started (MPI had its data then) is reported as buffer-access-latent
instead, as the store is when page protection sees it.`},
	Message: func(m *Message) {
		m.MarkRelated(buffer(m.RelatedCall, "S"))
		what := fmt.Sprintf("%d x %s", m.Count, m.Type(m.Handle))
		send := m.RelatedCall
		buf, op := sendSide(m)
		m.Printf("the %s (%s) of the %s completed here changed while the %s was pending%s: the program stored into it after the %s and before this call", buf, what, send, op, changedWhere(m), send)
	},
})

// changedWhere is " (first changed byte at offset N, element P)" for the
// cheap tier's comparison, and sets the element path.
func changedWhere(m *Message) string {
	m.SetPath(m.ElementAt(m.Handle, m.Addr, m.Count, m.At))
	where := ""
	if m.Addr != 0 {
		where = fmt.Sprintf(" at offset %d", int64(m.At-m.Addr))
	}
	if p := m.path; p != "" {
		where += ", element " + p
	}
	return " (first changed byte" + where + ")"
}
