// Package deadlock finds the ranks of an MPI job that can never continue,
// from what each rank is blocked in.
//
// The wait-for graph is over MPI_COMM_WORLD ranks in the AND/OR model: a
// blocked call lists its waits, and combines them with AND (MPI_Wait,
// MPI_Waitall, every blocking call: all must be satisfied) or OR
// (MPI_Waitany, MPI_Waitsome: one is enough). A receive from
// MPI_ANY_SOURCE is satisfied by any rank of its group (OR inside the
// wait); a collective by every member reaching it (AND inside the wait).
//
// A rank can continue when it is running, or when its waits are satisfied
// by ranks that can continue, or at once by a rank blocked in the matching
// operation: a send meets a posted receive and the other way round, and a
// member blocked in the same collective (same communicator, same number,
// same call) has arrived. Starting from the running ranks, that is
// computed to a fixpoint; the blocked ranks left over can never continue.
// Ranks that finished (MPI_Finalize) or died never continue either, but
// they are not deadlocked themselves: they are where a chain ends.
//
// Where the detector knows too little (a wait it cannot name, ranks the
// rank could not translate, a truncated list of waits) it assumes the
// wait can be satisfied: it reports fewer deadlocks rather than false
// ones.
package deadlock

import "slices"

// State is what a rank is doing.
type State int

const (
	Running  State = iota // not blocked (or not for long): it can continue
	Blocked               // inside an MPI call that has not returned
	Finished              // reached MPI_Finalize
	Dead                  // ended without MPI_Finalize
)

// Mode says how a rank's waits combine.
type Mode int

const (
	And Mode = iota // all of them
	Or              // any one
)

// Kind says what a wait needs.
type Kind int

const (
	Recv  Kind = iota + 1 // a message from one of Ranks
	Send                  // Ranks[0] to take a message
	Coll                  // every member in Ranks to reach collective Coll on Comm
	Other                 // unknown: taken as satisfiable
)

// AnyTag is a receive's MPI_ANY_TAG.
const AnyTag = -1

// Wait is one thing a blocked rank waits for.
type Wait struct {
	Kind     Kind
	Ranks    []int  // MPI_COMM_WORLD ranks that can satisfy it; empty: unknown
	Any      bool   // a receive from MPI_ANY_SOURCE
	Tag      int    // AnyTag in a receive matches any
	Call     string // the call that started the operation
	Comm     uint64 // the communicator's job-wide id; 0 unknown (matches any)
	CommName string
	Coll     uint64 // Coll: the collective's number on Comm
}

// Rank is the state of one rank.
type Rank struct {
	Rank  int
	State State
	// Blocked only:
	Call      string // "MPI_Recv"
	Args      string // "source=1, tag=0, comm=MPI_COMM_WORLD"
	Mode      Mode
	Waits     []Wait
	Truncated bool // the call waits for more than Waits lists
}

// graph is the job: ranks by number, and which can continue.
type graph struct {
	ranks map[int]*Rank
	can   map[int]bool
}

func newGraph(ranks []Rank) *graph {
	g := &graph{ranks: map[int]*Rank{}, can: map[int]bool{}}
	for i := range ranks {
		r := &ranks[i]
		if _, dup := g.ranks[r.Rank]; !dup {
			g.ranks[r.Rank] = r
		}
	}
	return g
}

// solve computes which ranks can continue: the running ones, then every
// blocked rank whose waits those (or a matching blocked operation)
// satisfy, until nothing changes.
func (g *graph) solve() {
	var blocked []*Rank
	for _, r := range g.ranks {
		switch r.State {
		case Running:
			g.can[r.Rank] = true
		case Blocked:
			blocked = append(blocked, r)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, r := range blocked {
			if !g.can[r.Rank] && g.satisfied(r) {
				g.can[r.Rank] = true
				changed = true
			}
		}
	}
}

// satisfied tells whether r's waits combine to something that will
// happen, given what g.can holds now.
func (g *graph) satisfied(r *Rank) bool {
	if len(r.Waits) == 0 {
		return true // nothing known
	}
	if r.Mode == Or {
		return r.Truncated || slices.ContainsFunc(r.Waits, func(w Wait) bool { return len(g.blockers(r, w)) == 0 })
	}
	// AND: a wait that can never be satisfied is enough, even when the
	// list is truncated; if all listed ones can, the rest is unknown.
	for _, w := range r.Waits {
		if len(g.blockers(r, w)) > 0 {
			return false
		}
	}
	return true
}

// blockers returns the ranks that keep wait w of rank r from being
// satisfied, given g.can: none when it will be. For a receive from any
// rank that is every candidate (none can help), for a collective every
// member that has not arrived and cannot continue.
func (g *graph) blockers(r *Rank, w Wait) []int {
	if w.Kind == Other || len(w.Ranks) == 0 {
		return nil
	}
	switch w.Kind {
	case Recv:
		var out []int
		for _, c := range w.Ranks {
			if c == r.Rank {
				continue // a blocked rank sends itself nothing
			}
			if g.canGo(c) || g.posted(c, Send, r.Rank, w) {
				return nil
			}
			out = append(out, c)
		}
		if out == nil {
			return []int{r.Rank} // only itself could send: a loop
		}
		return out
	case Send:
		t := w.Ranks[0]
		if t != r.Rank && (g.canGo(t) || g.posted(t, Recv, r.Rank, w)) {
			return nil
		}
		return []int{t}
	case Coll:
		var out []int
		for _, m := range w.Ranks {
			if m != r.Rank && !g.canGo(m) && !g.arrived(m, w) {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// canGo tells whether rank n can continue, as far as g.can knows now. A
// rank the job has not told about counts as able to.
func (g *graph) canGo(n int) bool { return g.can[n] || g.ranks[n] == nil }

// posted tells whether rank p is blocked with an operation of kind k
// that matches w of rank from: a send to from for w's receive, a receive
// that takes from's message for w's send.
func (g *graph) posted(p int, k Kind, from int, w Wait) bool {
	r := g.ranks[p]
	if r == nil || r.State != Blocked {
		return false
	}
	for _, x := range r.Waits {
		if x.Kind != k || !sameComm(x.Comm, w.Comm) || !slices.Contains(x.Ranks, from) {
			continue
		}
		recvTag, sendTag := w.Tag, x.Tag
		if k == Recv {
			recvTag, sendTag = x.Tag, w.Tag
		}
		if k == Send && len(x.Ranks) > 0 && x.Ranks[0] != from {
			continue
		}
		if recvTag == AnyTag || recvTag == sendTag {
			return true
		}
	}
	return false
}

// arrived tells whether member m is blocked in the collective w waits in.
func (g *graph) arrived(m int, w Wait) bool {
	r := g.ranks[m]
	if r == nil || r.State != Blocked {
		return false
	}
	return slices.ContainsFunc(r.Waits, func(x Wait) bool {
		return x.Kind == Coll && sameComm(x.Comm, w.Comm) && x.Coll == w.Coll && sameCollective(x.Call, w.Call)
	})
}

// sameComm: an unknown communicator (0) matches any, so that what the
// rank could not name never makes a deadlock.
func sameComm(a, b uint64) bool { return a == 0 || b == 0 || a == b }

// sameCollective compares the calls that started two collectives: the
// large-count form (MPI_Bcast_c) is the same operation; a blocking call
// never matches a nonblocking one (MPI-4.1 §6.12).
func sameCollective(a, b string) bool {
	if a == "" || b == "" {
		return true
	}
	trim := func(s string) string {
		if len(s) > 2 && s[len(s)-2:] == "_c" {
			return s[:len(s)-2]
		}
		return s
	}
	return trim(a) == trim(b)
}
