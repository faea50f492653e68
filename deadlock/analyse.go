package deadlock

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Shape is what closes a deadlock.
type Shape int

const (
	NoDeadlock Shape = iota
	Cycle            // ranks that each need the next (AND waits): Core in order
	Knot             // ranks whose every way out leads back among them (OR waits)
	Ended            // ranks wait for ranks that finished or died: Core holds those
)

func (s Shape) String() string {
	switch s {
	case Cycle:
		return "cycle"
	case Knot:
		return "knot"
	case Ended:
		return "ended"
	}
	return "none"
}

// Result is what Analyse found.
type Result struct {
	Deadlocked []int // blocked ranks that can never continue, sorted; empty: no deadlock
	Shape      Shape
	// Core is the cycle (in order, from its lowest rank), the knot
	// (sorted), or for Ended the finished or dead ranks waited for.
	Core  []int
	Edges []Edge // one per deadlocked rank, by rank
}

// Edge is what one deadlocked rank waits for.
type Edge struct {
	From int
	To   []int // ranks it waits for that cannot continue, sorted
	Any  bool  // one of To would be enough (OR), else all are needed
	Text string
}

// Analyse finds the blocked ranks that can never continue, the wait-for
// edges that hold them, and the cycle or knot that closes the deadlock.
func Analyse(ranks []Rank) Result {
	g := newGraph(ranks)
	g.solve()
	var res Result
	for n, r := range g.ranks {
		if r.State == Blocked && !g.can[n] {
			res.Deadlocked = append(res.Deadlocked, n)
		}
	}
	if len(res.Deadlocked) == 0 {
		return res
	}
	slices.Sort(res.Deadlocked)
	for _, n := range res.Deadlocked {
		res.Edges = append(res.Edges, g.edge(g.ranks[n]))
	}
	res.Shape, res.Core = g.core(res.Edges)
	return res
}

// edge describes what holds rank r: the waits not satisfied (all of
// them for OR) and the ranks behind them.
func (g *graph) edge(r *Rank) Edge {
	e := Edge{From: r.Rank}
	var plain []int           // single ranks, needed
	var anyOf [][]int         // groups of which one would do
	var colls []string        // collective phrases
	seen := map[string]bool{} // phrases already given
	for _, w := range r.Waits {
		b := g.blockers(r, w)
		if len(b) == 0 {
			continue
		}
		slices.Sort(b)
		e.To = append(e.To, b...)
		switch {
		case w.Kind == Coll:
			p := g.ranksText(b) + " (" + collText(w) + ")"
			if !seen[p] {
				seen[p] = true
				colls = append(colls, p)
			}
		case len(b) > 1:
			anyOf = append(anyOf, b)
		default:
			plain = append(plain, b[0])
		}
	}
	slices.Sort(e.To)
	e.To = slices.Compact(e.To)

	call := r.Call
	if call == "" {
		call = "an MPI call"
	}
	if r.Args != "" {
		call += "(" + r.Args + ")"
	}
	var what string
	switch {
	case r.Mode == Or && len(e.To) > 1 || r.Mode == And && len(plain) == 0 && len(colls) == 0 && len(anyOf) == 1:
		e.Any = true
		what = "any of " + g.ranksText(e.To)
	default:
		var parts []string
		if len(plain) > 0 {
			slices.Sort(plain)
			parts = append(parts, g.ranksText(slices.Compact(plain)))
		}
		for _, a := range anyOf {
			parts = append(parts, "any of "+g.ranksText(a))
		}
		parts = append(parts, colls...)
		what = strings.Join(parts, " and ")
	}
	e.Text = fmt.Sprintf("rank %d %s waits for %s", r.Rank, call, what)
	return e
}

// collText names a collective: "collective 3 on MPI_COMM_WORLD", or by
// its call when it has no number (the shim's own collective in
// MPI_Finalize): "MPI_Finalize on MPI_COMM_WORLD".
func collText(w Wait) string {
	if w.Coll == 0 && w.Call != "" {
		return w.Call + commSuffix(w)
	}
	return "collective " + strconv.FormatUint(w.Coll, 10) + commSuffix(w)
}

func commSuffix(w Wait) string {
	if w.CommName != "" {
		return " on " + w.CommName
	}
	return ""
}

// ranksText is "rank 1" or "ranks 0, 2, 5-9", each rank that ended
// marked: "rank 1 (finalized)". Runs of three or more ranks fold.
func (g *graph) ranksText(rs []int) string {
	word := "ranks "
	if len(rs) == 1 {
		word = "rank "
	}
	var parts []string
	for i := 0; i < len(rs); i++ {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 && g.fate(rs[j]) == "" && g.fate(rs[j+1]) == "" {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, fmt.Sprintf("%d-%d", rs[i], rs[j]))
			i = j
			continue
		}
		parts = append(parts, strconv.Itoa(rs[i])+g.fate(rs[i]))
	}
	return word + strings.Join(parts, ", ")
}

// fate marks a rank that ended: " (finalized)", " (died)", else "".
func (g *graph) fate(n int) string {
	if r := g.ranks[n]; r != nil {
		switch r.State {
		case Finished:
			return " (finalized)"
		case Dead:
			return " (died)"
		}
	}
	return ""
}

// core finds what closes the deadlock among the edges: a strongly
// connected group of deadlocked ranks with no way out to other
// deadlocked ranks (a knot, or a cycle for AND waits), else any such
// group, else the finished or dead ranks the chains end in.
func (g *graph) core(edges []Edge) (Shape, []int) {
	next := map[int][]int{}
	for _, e := range edges {
		next[e.From] = nil
	}
	for _, e := range edges {
		for _, t := range e.To {
			if _, in := next[t]; in {
				next[e.From] = append(next[e.From], t)
			}
		}
	}
	comps := sccs(edges, next)
	var pick []int
	bottom := false
	for _, c := range comps {
		if len(c) == 1 && !slices.Contains(next[c[0]], c[0]) {
			continue // one rank, no loop
		}
		closed := true
		for _, n := range c {
			for _, t := range next[n] {
				if !slices.Contains(c, t) {
					closed = false
				}
			}
		}
		if pick == nil || closed && !bottom || closed == bottom && c[0] < pick[0] {
			pick, bottom = c, closed
		}
	}
	if pick == nil {
		var ended []int
		for _, e := range edges {
			for _, t := range e.To {
				if r := g.ranks[t]; r != nil && (r.State == Finished || r.State == Dead) {
					ended = append(ended, t)
				}
			}
		}
		slices.Sort(ended)
		return Ended, slices.Compact(ended)
	}
	for _, e := range edges {
		if e.Any && slices.Contains(pick, e.From) {
			return Knot, pick
		}
	}
	return Cycle, cycleIn(pick, next)
}

// sccs returns the strongly connected components of the graph next
// (Tarjan's algorithm), each sorted, in the order of edges.
func sccs(edges []Edge, next map[int][]int) [][]int {
	index, low := map[int]int{}, map[int]int{}
	on := map[int]bool{}
	var stack []int
	var out [][]int
	var visit func(n int)
	visit = func(n int) {
		index[n], low[n] = len(index), len(index)
		stack = append(stack, n)
		on[n] = true
		for _, t := range next[n] {
			if _, seen := index[t]; !seen {
				visit(t)
				low[n] = min(low[n], low[t])
			} else if on[t] {
				low[n] = min(low[n], index[t])
			}
		}
		if low[n] == index[n] {
			var c []int
			for {
				t := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[t] = false
				c = append(c, t)
				if t == n {
					break
				}
			}
			slices.Sort(c)
			out = append(out, c)
		}
	}
	for _, e := range edges {
		if _, seen := index[e.From]; !seen {
			visit(e.From)
		}
	}
	return out
}

// cycleIn returns a shortest cycle through the lowest rank of the
// strongly connected component c, from that rank.
func cycleIn(c []int, next map[int][]int) []int {
	start := c[0]
	prev := map[int]int{}
	queue := []int{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, t := range next[n] {
			if !slices.Contains(c, t) {
				continue
			}
			if t == start {
				path := []int{n}
				for path[0] != start {
					path = append([]int{prev[path[0]]}, path...)
				}
				return path
			}
			if _, seen := prev[t]; !seen {
				prev[t] = n
				queue = append(queue, t)
			}
		}
	}
	return c // not reached: c is strongly connected
}

// Describe says what closes the deadlock, in a few words: "a cycle:
// rank 0 → rank 1 → rank 0".
func (r Result) Describe() string {
	switch r.Shape {
	case Cycle:
		steps := make([]string, 0, len(r.Core)+1)
		for _, n := range append(slices.Clone(r.Core), r.Core[0]) {
			steps = append(steps, "rank "+strconv.Itoa(n))
		}
		return "a cycle: " + strings.Join(steps, " → ")
	case Knot:
		return "a knot: ranks " + list(r.Core) + " wait for one another and for no rank outside"
	case Ended:
		if len(r.Core) == 1 {
			return "rank " + list(r.Core) + " has ended"
		}
		return "ranks " + list(r.Core) + " have ended"
	}
	return "no deadlock"
}

func list(rs []int) string {
	s := make([]string, len(rs))
	for i, n := range rs {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
