package checks

import (
	"fmt"
	"strings"
)

// Overlap: bytes that one call, or two calls in progress, would both
// write, or write and read (shim/roles.c, shim/pending.c).

// recvTypeOverlap: Count x Handle is the receive; from instance Val on,
// the datatype's instances share bytes.
var recvTypeOverlap = register(Check{
	Entry: Entry{ID: "recv-type-overlap", Category: CatOverlap, Severity: SevError,
		Title: "a receive uses a datatype whose entries overlap",
		Rule:  "MPI-4.1 §5.1.11: a datatype with overlapping entries must not be used in a receive",
		Doc: `Two elements of the receive buffer's type map share bytes, so the received
message would write the same memory twice, in an order MPI does not define.
With a count above one, overlap also arises between consecutive elements
when the extent is smaller than the data (a resized type): the message
names the first pair of elements that collide and their type-tree paths.`},
	Message: func(m *Message) {
		m.Mark(typeOf(m.Call, m.Arg), m.Arg)
		desc := m.Type(m.Handle)
		first, second := m.types.Collision(m.Handle, m.Count)
		if second != "" {
			m.SetPath(second)
			m.Printf("%s %s overlaps itself from %s on and %d are received: elements %s and %s share bytes", m.Arg, desc, plural(m.Val, "instance", "instances"), m.Count, first, second)
			return
		}
		m.Printf("%s %s overlaps itself from %s on and %d are received", m.Arg, desc, plural(m.Val, "instance", "instances"), m.Count)
	},
})

// recvBlocksOverlap: the receive buffer (Arg) of a v- or w-collective;
// Count x Handle at Addr is its block Val, Count2 x Handle2 at Addr2 its
// block Lim, which shares bytes with it from At on.
var recvBlocksOverlap = register(Check{
	Entry: Entry{ID: "recv-blocks-overlap", Category: CatOverlap, Severity: SevError,
		Title: "two blocks of a v- or w-collective's receive buffer share bytes",
		Rule:  "MPI-4.1 §6.5: the specification of counts, types, and displacements should not cause any location on the root to be written more than once; such a call is erroneous (the all-gather and all-to-all forms, §6.7 and §6.8, and the neighbourhood forms, §8.6, receive their blocks the same way)",
		Doc: `MPI_Gatherv, MPI_Allgatherv, MPI_Alltoallv, MPI_Alltoallw and their
nonblocking, persistent and neighbourhood forms place the data from each
process in its own block of the receive buffer: counts[i] elements of the
type at displs[i]. Two blocks whose bytes meet would both be written, in an
order MPI does not define; usually a displacement was computed from the
wrong counts (a prefix sum off by one, counts of another type). Only
bytes the datatypes touch count: interleaved strided blocks (columns of a
matrix) are fine. MPI-4.1 §6.6 asks the same of a scatter's send blocks
(no location read more than once); mpidbg does not report overlapping send
blocks, which only read memory.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		here := m.ElementAt(m.Handle, m.Addr, m.Count, m.At)
		there := m.ElementAt(m.Handle2, m.Addr2, m.Count2, m.At)
		m.SetPath(here)
		m.Type(m.Handle)
		m.Printf("%s: blocks %d and %d share bytes, so MPI would write them twice: first shared byte at offset %d of block %d, %d of block %d%s",
			m.Arg, m.Val, m.Lim, int64(m.At-m.Addr), m.Val, int64(m.At-m.Addr2), m.Lim,
			elementsOf(fmt.Sprintf("block %d", m.Val), here, fmt.Sprintf("block %d", m.Lim), there))
	},
})

// bufferOverlap: Count x Handle at Addr is this call's buffer, Count2 x
// Handle2 at Addr2 the pending operation's (RelatedCall: a nonblocking or
// persistent operation, or a one-sided one), At the first shared byte;
// the variant says who writes.
var bufferOverlap = register(Check{
	Entry: Entry{ID: "buffer-overlap", Category: CatOverlap, Severity: SevError,
		Title: "the buffer of a new operation overlaps the buffer of an operation still in progress, and one of them receives",
		Rule:  "MPI-4.1 §3.7.2: a receive buffer must not be accessed, and a send buffer not written, until the operation completes; §12.3: the origin buffer of a one-sided operation must not be updated, and the buffer a get writes not accessed, until the operation completes at the origin",
		Doc: `A pending MPI_Irecv (or nonblocking collective, or persistent receive)
owns its buffer until it completes. A second operation that writes into the
same bytes, or reads bytes the first will write, races with it: the result
depends on timing and on the MPI library. Only bytes the datatypes actually
touch count, so interleaved strided buffers (halo columns) are fine.

One-sided operations count too, from the call until the call that
completes them at the origin (MPI_Win_fence, MPI_Win_complete,
MPI_Win_unlock, MPI_Win_flush(_local) and their _all forms; the request of
MPI_Rget and friends): two MPI_Gets into the same origin bytes in one
epoch, an MPI_Irecv or MPI_Recv into the buffer of a pending MPI_Get, an
MPI_Send from it, a receive into the origin buffer of a pending MPI_Put.
Two operations that only read a buffer (two puts, a put and a send) do
not conflict.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		other := m.RelatedCall
		here := m.ElementAt(m.Handle, m.Addr, m.Count, m.At)
		there := m.ElementAt(m.Handle2, m.Addr2, m.Count2, m.At)
		m.SetPath(here)
		m.Type(m.Handle)
		verb := "reads memory that the " + other + " still in progress writes"
		switch m.Variant {
		case VariantWrites:
			verb = "writes memory that the " + other + " still in progress reads"
		case VariantBothWrite:
			verb = "writes memory that the " + other + " still in progress also writes"
		}
		m.Printf("%s %s: first shared byte%s%s", m.Arg, verb, offsets(m.At, m.Addr, "", m.Addr2, other), elements(here, there))
	},
})

func elements(here, there string) string {
	switch {
	case here != "" && there != "":
		return fmt.Sprintf(", element %s here, %s there", here, there)
	case here != "":
		return fmt.Sprintf(", element %s here", here)
	}
	return ""
}

// sendRecvOverlap: Arg and Count x Handle at Addr are the send side, Text
// and Count2 x Handle2 at Addr2 the receive side, At the first shared
// byte.
var sendRecvOverlap = register(Check{
	Entry: Entry{ID: "send-recv-overlap", Category: CatOverlap, Severity: SevError,
		Title: "the send and receive buffers of one call overlap",
		Rule:  "MPI-4.1 §3.10 (MPI_SENDRECV: the send and receive buffers must be disjoint) and §2.3 (OUT arguments must not alias other arguments); use MPI_IN_PLACE for in-place collectives",
		Doc: `MPI_Sendrecv, and collectives such as MPI_Allreduce or MPI_Alltoall, read
the send buffer while they write the receive buffer. Passing overlapping
buffers works with some algorithms and corrupts data with others. Use
MPI_Sendrecv_replace, or MPI_IN_PLACE in the collective.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		recv := m.Text
		here := m.ElementAt(m.Handle2, m.Addr2, m.Count2, m.At)
		there := m.ElementAt(m.Handle, m.Addr, m.Count, m.At)
		m.SetPath(here)
		m.Type(m.Handle2)
		m.Printf("%s and %s overlap: first shared byte%s%s; use disjoint buffers or MPI_IN_PLACE", m.Arg, recv, offsets(m.At, m.Addr, m.Arg, m.Addr2, recv), elementsOf(recv, here, m.Arg, there))
	},
})

func elementsOf(a, pa, b, pb string) string {
	var parts []string
	if pa != "" {
		parts = append(parts, fmt.Sprintf("element %s of %s", pa, a))
	}
	if pb != "" {
		parts = append(parts, fmt.Sprintf("element %s of %s", pb, b))
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}
