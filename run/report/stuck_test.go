package report

import (
	"slices"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/wire"
)

// errorAt is an error finding rank reported at call and site offset off.
func errorAt(id, call string, off uint64) wire.Message {
	e, _ := checks.Lookup(id)
	return wire.Message{Kind: wire.KindFinding, Finding: &checks.Finding{
		ID: id, Category: e.Category, Severity: e.Severity, Message: "m", Call: call,
		Site: checks.Site{Module: "/bin/app", Offset: off}}}
}

func blockedIn(rank int, call string, off uint64, waits ...wire.Wait) wire.Message {
	return wire.Message{Kind: wire.KindBlocked, Blocked: &wire.Blocked{Rank: rank, Seq: 4, Call: call, Mode: wire.And,
		Site: checks.Site{Module: "/bin/app", Offset: off}, Waits: waits, ForMS: 100}}
}

// TestStuckAtErrors: a rank counts when its blocked call, or an operation
// it waits for, is where it reported an error; warnings, other places and
// other ranks' errors do not count.
func TestStuckAtErrors(t *testing.T) {
	c := NewCollector()
	conns := []*Conn{c.Conn(), c.Conn(), c.Conn(), c.Conn()}
	for i, cn := range conns {
		cn.Handle(hello(i, 100+i))
	}
	// rank 0: blocked in the MPI_Gather that reported the root mismatch
	conns[0].Handle(errorAt("collective-root-mismatch", "MPI_Gather", 10))
	conns[0].Handle(blockedIn(0, "MPI_Gather", 10))
	// rank 1: in MPI_Wait on the MPI_Ibcast that reported the mismatch
	conns[1].Handle(errorAt("collective-mismatch", "MPI_Ibcast", 20))
	conns[1].Handle(blockedIn(1, "MPI_Wait", 30, wire.Wait{Kind: wire.WaitColl, Call: "MPI_Ibcast", Comm: 1, Coll: 2,
		Site: checks.Site{Module: "/bin/app", Offset: 20}}))
	// rank 2: a warning at the call it blocks in, an error elsewhere
	conns[2].Handle(errorAt("leak-comm", "MPI_Recv", 40))
	conns[2].Handle(errorAt("collective-root-mismatch", "MPI_Bcast", 50))
	conns[2].Handle(blockedIn(2, "MPI_Recv", 40))
	// rank 3: blocked where rank 0 reported (same site, another rank)
	conns[3].Handle(blockedIn(3, "MPI_Gather", 10))

	s := c.State().StuckAtErrors()
	if !slices.Equal(s.Ranks, []int{0, 1}) || !slices.Equal(s.IDs, []string{"collective-mismatch", "collective-root-mismatch"}) {
		t.Errorf("got %v %v, want ranks [0 1], ids collective-mismatch, collective-root-mismatch", s.Ranks, s.IDs)
	}
}

// TestErrorSitesShared: a state copied before more errors arrive keeps
// what it had.
func TestErrorSitesShared(t *testing.T) {
	c := NewCollector()
	cn := c.Conn()
	cn.Handle(hello(0, 100))
	cn.Handle(errorAt("collective-root-mismatch", "MPI_Gather", 10))
	before := c.State().Ranks[0].ErrorSites
	for off := uint64(11); off < 20; off++ {
		cn.Handle(errorAt("collective-root-mismatch", "MPI_Gather", off))
	}
	cn.Handle(errorAt("collective-root-mismatch", "MPI_Gather", 10)) // again: kept once
	if len(before) != 1 || before[0].site.Offset != 10 {
		t.Errorf("the copy changed: %+v", before)
	}
	if got := c.State().Ranks[0].ErrorSites; len(got) != 10 {
		t.Errorf("got %d sites, want 10", len(got))
	}
}
