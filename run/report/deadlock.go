package report

import (
	"fmt"
	"slices"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/checks/deadlock"
	"github.com/mpidbg/mpidbg/wire"
)

// DeadlockRanks is the job as package deadlock takes it: every rank that
// said Hello, running, blocked (with its waits), finished (Bye) or dead
// (its connection ended without Bye).
func (st JobState) DeadlockRanks() []deadlock.Rank {
	out := make([]deadlock.Rank, 0, len(st.Ranks))
	for n, r := range st.Ranks {
		d := deadlock.Rank{Rank: n}
		switch {
		case r.Bye:
			d.State = deadlock.Finished
		case r.Closed:
			d.State = deadlock.Dead
		case r.Blocked != nil:
			b := r.Blocked
			d.State, d.Call, d.Args, d.Truncated, d.Polling = deadlock.Blocked, b.Call, b.Args, b.Truncated, b.Polling
			if b.Mode == wire.Or {
				d.Mode = deadlock.Or
			}
			for _, w := range b.Waits {
				d.Waits = append(d.Waits, deadlock.Wait{Kind: waitKinds[w.Kind], Ranks: w.Ranks, Any: w.Any, Tag: w.Tag,
					Call: w.Call, Comm: w.Comm, CommName: w.CommName, Coll: w.Coll})
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b deadlock.Rank) int { return a.Rank - b.Rank })
	return out
}

var waitKinds = map[wire.WaitKind]deadlock.Kind{
	wire.WaitRecv: deadlock.Recv, wire.WaitSend: deadlock.Send, wire.WaitColl: deadlock.Coll, wire.WaitOther: deadlock.Other,
	wire.WaitSync: deadlock.Sync,
}

// maxEdgesInMessage bounds the wait-for edges a deadlock's message
// spells out; the related locations hold every one.
const maxEdgesInMessage = 8

// DeadlockFinding is the finding for a deadlock res found in st: ranks
// res.Deadlocked; the message says what closes it and how the ranks wait
// for one another (the edges of the cycle or knot first); the call and
// site are those of the first rank of the cycle or knot; the related
// locations give, for each deadlocked rank (the cycle's or knot's first,
// at most maxRelatedRanks), its blocked call (with the edge's text), the
// frames of its stack and where the operations it waits for started. With zeroBuffering (--buffering=zero) and a send in the
// deadlock that only zero buffering made synchronous, the finding is a
// potential-deadlock: MPI would probably have buffered that send. A
// result without deadlocked ranks gives the zero Finding.
func DeadlockFinding(res deadlock.Result, st JobState, zeroBuffering bool) checks.Finding {
	if len(res.Deadlocked) == 0 {
		return checks.Finding{}
	}
	id := checks.Deadlock.ID
	if zeroBuffering && slices.ContainsFunc(res.Deadlocked, func(n int) bool {
		b := st.Ranks[n].Blocked
		return b != nil && b.ZeroBuffered
	}) {
		id = checks.PotentialDeadlock.ID
	}

	// The edges of the core first, then the rest, in rank order.
	edges := slices.Clone(res.Edges)
	inCore := func(n int) bool { return res.Shape != deadlock.Ended && slices.Contains(res.Core, n) }
	slices.SortStableFunc(edges, func(a, b deadlock.Edge) int {
		x, y := inCore(a.From), inCore(b.From)
		switch {
		case x && !y:
			return -1
		case y && !x:
			return 1
		}
		return 0
	})
	texts := make([]string, 0, maxEdgesInMessage+1)
	for i, e := range edges {
		if i == maxEdgesInMessage {
			texts = append(texts, fmt.Sprintf("%d more in the related locations", len(edges)-i))
			break
		}
		texts = append(texts, e.Text)
	}
	d := checks.Describe(&checks.Event{ID: id, Ranks: res.Deadlocked, Text: res.Describe(), Items: texts}, nil)
	f := checks.Finding{ID: id, Category: d.Entry.Category, Severity: d.Entry.Severity, Rule: d.Entry.Rule,
		Message: d.Message, Ranks: slices.Clone(res.Deadlocked)}

	first := res.Deadlocked[0]
	if len(res.Core) > 0 && inCore(res.Core[0]) {
		first = res.Core[0]
	}
	if r := st.Ranks[first]; r.Blocked != nil {
		f.Call = r.Blocked.Call
		f.Site = programSite(r.Blocked.Site, r.Hello.Exe)
	}
	for i, e := range edges {
		if i == maxRelatedRanks {
			f.Related = append(f.Related, checks.Related{Message: fmt.Sprintf("%d more deadlocked ranks not listed", len(edges)-i)})
			break
		}
		f.Related = append(f.Related, relatedOf(e, st.Ranks[e.From])...)
	}
	return f
}

// maxRelatedRanks bounds the ranks whose calls and stacks the related
// locations list (those of the cycle or knot first): 10,000 deadlocked
// ranks in one MPI_Barrier say nothing more than 64 do.
const maxRelatedRanks = 64

// relatedOf is one deadlocked rank's part of the related locations: its
// call, the frames of its stack beyond the call, and where the operations
// it waits for started.
func relatedOf(e deadlock.Edge, r RankState) []checks.Related {
	b := r.Blocked
	if b == nil {
		return nil
	}
	exe := r.Hello.Exe
	out := []checks.Related{{Message: e.Text, Site: programSite(b.Site, exe)}}
	// The stack starts at the call's site when the rank found it there;
	// frames inside MPI before it (if any) say nothing to the user.
	stack := b.Stack
	if i := slices.Index(stack, b.Site); i >= 0 {
		stack = stack[i+1:]
	}
	for i, s := range stack {
		out = append(out, checks.Related{Message: fmt.Sprintf("rank %d frame #%d", e.From, i+1), Site: programSite(s, exe)})
	}
	seen := map[checks.Site]bool{}
	for _, w := range b.Waits {
		if w.Site == (checks.Site{}) || seen[w.Site] {
			continue
		}
		seen[w.Site] = true
		call := w.Call
		if call == "" {
			call = "operation"
		}
		out = append(out, checks.Related{Message: fmt.Sprintf("rank %d waits for the %s started here", e.From, call), Site: programSite(w.Site, exe)})
	}
	return out
}
