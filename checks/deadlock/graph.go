package deadlock

import (
	"slices"
	"strings"
	"unsafe"
)

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
	// Sync is Ranks[0]'s part of a one-sided epoch on the window Comm (its
	// MPI_Win_post, its MPI_Win_complete). Whether that rank did its part
	// already is not known, except when it is blocked in a collective on
	// the same window (MPI_Win_fence, MPI_Win_free), which it cannot leave
	// before this rank arrives: then the wait holds until it can continue;
	// else it is taken as satisfiable.
	Sync
)

// AnyTag is a receive's MPI_ANY_TAG.
const AnyTag = -1

// Wait is one thing a blocked rank waits for.
type Wait struct {
	Kind Kind
	// Ranks (MPI_COMM_WORLD) that can satisfy it: the peer, the group of a
	// wildcard receive, the members of a collective. Sorted for a group
	// or collective; empty: unknown. Waits may share one slice.
	Ranks    []int
	Any      bool   // a receive from MPI_ANY_SOURCE
	Tag      int    // AnyTag in a receive matches any
	Call     string // the call that started the operation
	Comm     uint64 // the communicator's job-wide id; 0 unknown
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
	Polling   bool // not inside Call, but calling it in a loop (MPI_Test until done)
}

// graph is the job and the solver's state.
type graph struct {
	ranks map[int]*Rank
	nodes map[int]*node // the blocked ranks
	can   map[int]bool  // ranks that can continue, as far as known so far
	queue []int         // ranks that became able to, not yet propagated

	specific map[int][]ref // waits on one rank (a receive from it, a send to it)
	groups   []*group
	groupOf  map[groupID]*group   // by slice
	byHash   map[groupID][]*group // by contents
	memberOf map[int][]*group
	colls    map[collKey]*coll
	collList []*coll         // in order of creation, for stable output
	missOf   map[int][]*coll // collectives a rank has not reached
}

// node is a blocked rank: which of its waits are satisfied, how many an
// AND still needs, and what each wait is on.
type node struct {
	r    *Rank
	sat  []bool
	need int
	on   []target
}

// target is what one wait is on: a rank, a group, a collective, or
// nothing known (satisfied).
type target struct {
	rank  int // specific waits; -1 otherwise
	group *group
	coll  *coll
}

type ref struct {
	n *node
	i int
}

// group is the ranks of a wildcard receive: satisfied as soon as one of
// them can continue.
type group struct {
	id      int
	members []int // sorted
	can     int   // members that can continue
	waiters []ref
	text    *ranksText // made when an edge needs it
}

// groupID identifies a group by its slice when waits share one (what
// the launcher does), by its contents otherwise.
type groupID struct {
	ptr  uintptr
	n    int
	hash uint64
}

// coll is one collective: a communicator, a number and a call. It
// completes once every member has arrived or can still arrive.
type coll struct {
	id      int
	key     collKey
	w       Wait // the first wait on it, for its name
	members []int
	arrived map[int]bool
	missing int // members not arrived that cannot continue
	waiters []ref
	text    string // made when an edge needs it
}

type collKey struct {
	comm, coll uint64
	call       string
}

func newGraph(ranks []Rank) *graph {
	g := &graph{ranks: map[int]*Rank{}, nodes: map[int]*node{}, can: map[int]bool{},
		specific: map[int][]ref{}, groupOf: map[groupID]*group{}, byHash: map[groupID][]*group{}, memberOf: map[int][]*group{},
		colls: map[collKey]*coll{}, missOf: map[int][]*coll{}}
	for i := range ranks {
		r := &ranks[i]
		if _, dup := g.ranks[r.Rank]; !dup {
			g.ranks[r.Rank] = r
		}
	}
	return g
}

// known tells whether the job told about rank n; a rank it did not tell
// about counts as able to continue.
func (g *graph) known(n int) bool { return g.ranks[n] != nil }

// solve computes which ranks can continue.
func (g *graph) solve() {
	// Set every blocked rank's waits on their targets.
	var order []int
	for n, r := range g.ranks {
		if r.State == Blocked {
			order = append(order, n)
		}
	}
	slices.Sort(order)
	for _, n := range order {
		r := g.ranks[n]
		nd := &node{r: r, sat: make([]bool, len(r.Waits)), on: make([]target, len(r.Waits))}
		g.nodes[n] = nd
		for i, w := range r.Waits {
			nd.on[i] = g.place(nd, i, w)
		}
	}
	g.match()
	for _, c := range g.collList {
		for _, m := range c.members {
			if !c.arrived[m] && g.known(m) {
				c.missing++
				g.missOf[m] = append(g.missOf[m], c)
			}
		}
	}
	for _, gr := range g.groups {
		for _, m := range gr.members {
			if g.known(m) {
				g.memberOf[m] = append(g.memberOf[m], gr)
			} else {
				gr.can++
			}
		}
	}
	// What is satisfied from the start: targets not known, collectives
	// every member reached, groups with an unknown member.
	for _, n := range order {
		nd := g.nodes[n]
		for i, t := range nd.on {
			switch {
			case t.group != nil && t.group.can > 0, t.coll != nil && t.coll.missing == 0:
				nd.sat[i] = true
			case t.rank >= 0 && !g.known(t.rank):
				nd.sat[i] = true
			}
		}
	}
	for _, n := range order {
		nd := g.nodes[n]
		for _, s := range nd.sat {
			if !s {
				nd.need++
			}
		}
		sat := len(nd.sat) - nd.need
		if len(nd.sat) == 0 || nd.r.Mode == Or && (sat > 0 || nd.r.Truncated) || nd.r.Mode != Or && nd.need == 0 {
			g.become(n)
		}
	}
	for n, r := range g.ranks {
		if r.State == Running {
			g.become(n)
		}
	}
	g.propagate()
}

// place records wait i of nd on what it waits for.
func (g *graph) place(nd *node, i int, w Wait) target {
	t := target{rank: -1}
	if w.Kind == Other || len(w.Ranks) == 0 {
		nd.sat[i] = true // unknown
		return t
	}
	switch w.Kind {
	case Recv:
		if w.Any || len(w.Ranks) > 1 {
			t.group = g.group(w.Ranks)
			t.group.waiters = append(t.group.waiters, ref{nd, i})
			return t
		}
		t.rank = w.Ranks[0]
	case Send:
		t.rank = w.Ranks[0]
	case Sync:
		if !g.inColl(w.Ranks[0], w.Comm) {
			nd.sat[i] = true
			return t
		}
		t.rank = w.Ranks[0]
	case Coll:
		if w.Comm == 0 {
			nd.sat[i] = true // which collective is not known
			return t
		}
		k := collKey{w.Comm, w.Coll, trimLarge(w.Call)}
		c := g.colls[k]
		if c == nil {
			c = &coll{id: len(g.collList), key: k, w: w, members: sortedSet(w.Ranks), arrived: map[int]bool{}}
			g.colls[k] = c
			g.collList = append(g.collList, c)
		}
		c.arrived[nd.r.Rank] = true
		c.waiters = append(c.waiters, ref{nd, i})
		t.coll = c
		return t
	default:
		nd.sat[i] = true
		return t
	}
	g.specific[t.rank] = append(g.specific[t.rank], ref{nd, i})
	return t
}

// inColl tells whether rank n is blocked in a collective on comm.
func (g *graph) inColl(n int, comm uint64) bool {
	r := g.ranks[n]
	if r == nil || r.State != Blocked || comm == 0 {
		return false
	}
	for _, w := range r.Waits {
		if w.Kind == Coll && w.Comm == comm {
			return true
		}
	}
	return false
}

// group returns the group of ranks rs, made once per distinct set.
func (g *graph) group(rs []int) *group {
	id := groupID{ptr: uintptr(unsafe.Pointer(unsafe.SliceData(rs))), n: len(rs)}
	if gr := g.groupOf[id]; gr != nil {
		return gr
	}
	set := sortedSet(rs)
	h := groupID{n: len(set), hash: hashInts(set)}
	for _, gr := range g.byHash[h] {
		if slices.Equal(gr.members, set) {
			g.groupOf[id] = gr
			return gr
		}
	}
	gr := &group{id: len(g.groups), members: set}
	g.groups = append(g.groups, gr)
	g.groupOf[id] = gr
	g.byHash[h] = append(g.byHash[h], gr)
	return gr
}

// sortedSet is rs sorted and without duplicates: rs itself when it is
// so already (it is never changed), else a copy.
func sortedSet(rs []int) []int {
	ok := true
	for i := 1; i < len(rs) && ok; i++ {
		ok = rs[i-1] < rs[i]
	}
	if ok {
		return rs
	}
	s := slices.Clone(rs)
	slices.Sort(s)
	return slices.Compact(s)
}

func hashInts(rs []int) uint64 {
	h := uint64(14695981039346656037)
	for _, r := range rs {
		h = (h ^ uint64(r)) * 1099511628211
	}
	return h
}

// match satisfies at once the sends and receives that meet: both ranks
// blocked, same communicator, the receive takes the sender, the tags
// agree. The transfer is under way; neither waits for the other.
func (g *graph) match() {
	for _, p := range sortedKeys(g.nodes) {
		nd := g.nodes[p]
		for i, w := range nd.r.Waits {
			if w.Kind != Send || nd.on[i].rank < 0 {
				continue
			}
			t := g.nodes[nd.on[i].rank]
			if t == nil {
				continue
			}
			for j, x := range t.r.Waits {
				if x.Kind != Recv || !sameComm(x.Comm, w.Comm) || !(x.Tag == AnyTag || x.Tag == w.Tag) {
					continue
				}
				if on := t.on[j]; on.rank == p || on.group != nil && inSorted(on.group.members, p) {
					nd.sat[i], t.sat[j] = true, true
				}
			}
		}
	}
}

func inSorted(s []int, x int) bool {
	_, ok := slices.BinarySearch(s, x)
	return ok
}

func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// become records that rank n can continue, for propagate.
func (g *graph) become(n int) {
	if !g.can[n] {
		g.can[n] = true
		g.queue = append(g.queue, n)
	}
}

// propagate passes on that ranks can continue: to the waits on them, the
// groups they are in, the collectives they have not reached yet.
func (g *graph) propagate() {
	for len(g.queue) > 0 {
		n := g.queue[0]
		g.queue = g.queue[1:]
		for _, x := range g.specific[n] {
			g.satisfy(x)
		}
		for _, gr := range g.memberOf[n] {
			if gr.can++; gr.can == 1 {
				for _, x := range gr.waiters {
					g.satisfy(x)
				}
			}
		}
		for _, c := range g.missOf[n] {
			if c.missing--; c.missing == 0 {
				for _, x := range c.waiters {
					g.satisfy(x)
				}
			}
		}
	}
}

func (g *graph) satisfy(x ref) {
	nd := x.n
	if nd.sat[x.i] || g.can[nd.r.Rank] {
		return
	}
	nd.sat[x.i] = true
	nd.need--
	if nd.r.Mode == Or || nd.need == 0 {
		g.become(nd.r.Rank)
	}
}

// sameComm: an unknown communicator (0) matches any, so that what the
// rank could not name never makes a deadlock.
func sameComm(a, b uint64) bool { return a == 0 || b == 0 || a == b }

// trimLarge names a collective's call without the large-count suffix
// (MPI_Bcast_c is MPI_Bcast) or the hints (MPI_Comm_dup_with_info is
// MPI_Comm_dup, as the shim's agreement counts it); a blocking call never
// matches a nonblocking one (MPI-4.1 §6.12), so MPI_Ibarrier stays apart.
func trimLarge(s string) string {
	s = strings.TrimSuffix(s, "_with_info")
	if len(s) > 2 && s[len(s)-2:] == "_c" {
		return s[:len(s)-2]
	}
	return s
}
