package checks

import (
	"fmt"
	"strings"

	"github.com/mpidbg/mpidbg/internal/ranklist"
)

// Collective agreement: the ranks of a communicator call the same
// collective, in the same order, with the same root, operation and
// matching signatures (shim/xr_coll.c). When they do not, every rank
// gathers every rank's entry and the groups of ranks with equal entries
// are the event's Groups; the id says which field differs.

var collectiveMismatch = register(Check{
	Entry: Entry{ID: "collective-mismatch", Category: CatCollective, Severity: SevError,
		Title: "the ranks of a communicator call different collectives at the same point",
		Rule:  "MPI-4.1 §6.1: all processes of the group must call the same collective operations on a communicator in the same order; a blocking call never matches a nonblocking one (§6.12)",
		Doc: `Collectives match by order on each communicator: the n-th collective of
one rank meets the n-th collective of every other. If rank 0 calls
MPI_Barrier while rank 1 calls MPI_Bcast, or one rank calls MPI_Allreduce
and another MPI_Iallreduce, the job hangs or computes garbage depending on
the algorithms. The report lists which ranks called what, and where. The
usual cause is a collective inside a branch that only some ranks take.
The communicator constructors every rank of a communicator calls
(MPI_Comm_dup and MPI_Comm_idup, MPI_Comm_split, MPI_Comm_create,
MPI_Cart_create, ...) count as collectives on it (MPI-4.1 §7.4): a
library's set-up that duplicates the communicator on some ranks only is
this bug too.`},
	Message: collectiveMessage,
})

var collectiveRootMismatch = register(Check{
	Entry: Entry{ID: "collective-root-mismatch", Category: CatCollective, Severity: SevError,
		Title: "the ranks of a rooted collective give different roots",
		Rule:  "MPI-4.1 §6.1: the root argument must have the same value on all processes",
		Doc: `MPI_Bcast, MPI_Reduce, MPI_Gather(v), MPI_Scatter(v) and their nonblocking
and persistent forms need the same root on every rank. With different roots
data goes to the wrong place or the job hangs.`},
	Message: collectiveMessage,
})

var collectiveOpMismatch = register(Check{
	Entry: Entry{ID: "collective-op-mismatch", Category: CatCollective, Severity: SevError,
		Title: "the ranks of a reduction give different operations",
		Rule:  "MPI-4.1 §6.9.1: the op argument must be the same on all processes",
		Doc: `Every rank of a reduction (MPI_Reduce, MPI_Allreduce, MPI_Scan, MPI_Exscan,
MPI_Reduce_scatter...) must pass the same operation; which one MPI applies
where is otherwise undefined.`},
	Message: collectiveMessage,
})

var collectiveTypeMismatch = register(Check{
	Entry: Entry{ID: "collective-type-mismatch", Category: CatCollective, Severity: SevError,
		Title: "the amounts or type signatures of a collective differ between ranks",
		Rule:  "MPI-4.1 §6.1: the amount of data sent must equal the amount received, pairwise between each process and the root; type signatures must match exactly (no partial receive)",
		Doc: `Unlike point-to-point, a collective's receive may not take a prefix: each
block sent must match the block received at the other end, element by
element. For the v and w variants every count and datatype pair is
compared with its partner on the other rank, and for the neighbourhood
collectives (MPI_Neighbor_*, §8.6) every block with the one the neighbour
sends along the same edge of the topology. The report names the ranks and
the counts and datatypes on each side.`},
	Message: collectiveMessage,
})

// collectiveMessage lists the groups of ranks with what each called, with
// the field the id names.
func collectiveMessage(m *Message) {
	if m.Variant == VariantPairs {
		pairsMessage(m)
		return
	}
	switch m.ID {
	case "collective-root-mismatch":
		m.Mark("root")
	case "collective-op-mismatch":
		m.Mark("op")
	}
	// Groups that read the same differ in what the text cannot show (two
	// derived datatypes, two recvcounts arrays): they are numbered.
	texts := make([]string, len(m.Groups))
	same := map[string]int{}
	for i, g := range m.Groups {
		texts[i] = groupText(m.ID, g)
		same[texts[i]]++
	}
	seen := map[string]int{}
	var b strings.Builder
	b.WriteString("the ranks of the communicator disagree: ")
	for i, g := range m.Groups {
		if b.Len() >= maxCollectiveText {
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %s", ranksInOrder(g.Ranks), texts[i])
		if t := texts[i]; same[t] > 1 {
			seen[t]++
			fmt.Fprintf(&b, " (type signature %d)", seen[t])
		}
	}
	switch m.ID {
	case "collective-mismatch":
		b.WriteString(" (the n-th collective of every rank must be the same call)")
	case "collective-type-mismatch":
		b.WriteString(" (a collective's blocks must match in count and type signature exactly)")
	}
	m.SetText(b.String())
}

// groupText is what a group of ranks called, with the field id names.
func groupText(id string, g Group) string {
	t := modeWords[g.Mode] + g.Call
	switch id {
	case "collective-root-mismatch":
		t += fmt.Sprintf(" with root %d", g.Root)
	case "collective-op-mismatch":
		t += fmt.Sprintf(" with op %s", g.Op)
	case "collective-type-mismatch":
		if g.HasRoot {
			t += " as the root"
		}
		if g.SendCount >= 0 && g.RecvCount >= 0 && (g.SendCount != g.RecvCount || g.SendType != g.RecvType && g.SendType != "" && g.RecvType != "") {
			t += fmt.Sprintf(" with sendcount %d%s, recvcount %d%s", g.SendCount, ofType(g.SendType), g.RecvCount, ofType(g.RecvType))
		} else if g.SendCount >= 0 {
			t += fmt.Sprintf(" with count %d%s", g.SendCount, ofType(g.SendType))
		} else if g.RecvCount >= 0 {
			t += fmt.Sprintf(" with count %d%s", g.RecvCount, ofType(g.RecvType))
		} else if g.RecvType != "" {
			t += " of " + g.RecvType // MPI_Reduce_scatter: its recvcounts
		}
	}
	return t
}

// ofType is the datatype after a count: " of MPI_INT", or nothing when
// the rank's datatype is unknown.
func ofType(name string) string {
	if name == "" {
		return ""
	}
	return " of " + name
}

// maxCollectiveText bounds the groups listed: a job of many ranks that
// disagree in many ways says enough in a few thousand characters.
const maxCollectiveText = 3900

var modeWords = map[CallMode]string{ModeBlocking: "", ModeNonblocking: "nonblocking ", ModePersistent: "persistent "}

// pairsMessage: the blocks of a v/w or neighbourhood collective (Call;
// RelatedCall is its blocking form, MPI_Gatherv for MPI_Igatherv and
// MPI_Gatherv_init) do not pair up, found by Ranks; with FlagFoundHere
// this rank is one of them, and Val elements of SendType are sent where
// Lim of RecvType are received, Count being the index into the counts
// array (a neighbourhood collective's: the in-neighbour's) and Peer the
// other rank.
func pairsMessage(m *Message) {
	here := ""
	if m.Flags&FlagFoundHere != 0 {
		sends := func(whose string) string { return blockOf(m.Val, m.SendType, whose) }
		recvs := func(whose string) string { return blockOf(m.Lim, m.RecvType, whose) }
		switch m.RelatedCall {
		case "MPI_Gatherv":
			here = fmt.Sprintf("; here: this rank sends %s, the root receives %s (recvcounts[%d])", sends("its sendtype"), recvs("its recvtype"), m.Count)
		case "MPI_Scatterv":
			here = fmt.Sprintf("; here: the root sends %s (sendcounts[%d]), this rank receives %s", sends("its sendtype"), m.Count, recvs("its recvtype"))
		case "MPI_Allgatherv":
			here = fmt.Sprintf("; here: rank %d sends %s, this rank receives recvcounts[%d] = %s", m.Peer, sends("its sendtype"), m.Count, recvs("its recvtype"))
		default:
			if strings.HasPrefix(m.RelatedCall, "MPI_Neighbor_") {
				here = fmt.Sprintf("; here: %s sends %s to this rank along an edge of the topology, where this rank receives %s (block %d of recvbuf)",
					neighbour(m.Peer), sends("its type"), recvs("its own type"), m.Count)
				break
			}
			rtype := "its recvtype"
			if m.RelatedCall == "MPI_Alltoallw" {
				rtype = fmt.Sprintf("recvtypes[%d]", m.Count) // a datatype per peer
			}
			here = fmt.Sprintf("; here: rank %d sends %s to this rank, which receives recvcounts[%d] = %s", m.Peer, sends("its sendtype"), m.Count, recvs(rtype))
		}
	}
	m.SetText(fmt.Sprintf("the blocks of %s do not pair up: %s found a block whose count or type signature differs from its partner's%s",
		m.Call, ranksInOrder(m.Ranks), here))
}

// blockOf is count elements of a block's datatype: by its name when it is
// predefined, otherwise of whose datatype ("its recvtype"), which may be
// the program's own.
func blockOf(count int64, name, whose string) string {
	if !strings.HasPrefix(name, "MPI_") {
		return fmt.Sprintf("%d of %s", count, whose)
	}
	return fmt.Sprintf("%d of %s", count, name)
}

// neighbour names the sending neighbour: its rank when the shim could
// tell it from the topology.
func neighbour(peer int) string {
	if peer < 0 {
		return "the neighbour"
	}
	return fmt.Sprintf("rank %d", peer)
}

// ranksInOrder names ranks in the communicator's order, as the detector
// gathered them: "rank 3", "ranks 4,0-2".
func ranksInOrder(ranks []int) string {
	if len(ranks) == 1 {
		return "rank " + ranklist.Format(ranks, ranklist.Compact)
	}
	return "ranks " + ranklist.Format(ranks, ranklist.Compact)
}
