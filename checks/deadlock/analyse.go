package deadlock

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mpidbg/mpidbg/internal/ranklist"
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
	Any  bool // one of several ranks would be enough (OR), else all are needed
	// Text: "rank 0 MPI_Recv(source=1, tag=0, comm=MPI_COMM_WORLD) waits
	// for rank 1". Long lists of ranks are cut after maxListed items.
	Text string
}

// Analyse finds the blocked ranks that can never continue, the wait-for
// edges that hold them, and the cycle or knot that closes the deadlock.
func Analyse(ranks []Rank) Result {
	g := newGraph(ranks)
	g.solve()
	var res Result
	for _, n := range sortedKeys(g.nodes) {
		if !g.can[n] {
			res.Deadlocked = append(res.Deadlocked, n)
		}
	}
	if len(res.Deadlocked) == 0 {
		return res
	}
	for _, n := range res.Deadlocked {
		res.Edges = append(res.Edges, g.edge(g.nodes[n]))
	}
	res.Shape, res.Core = g.core(res.Deadlocked)
	return res
}

// unsatisfied returns the indices of the waits that hold nd (every wait
// of an OR).
func (nd *node) unsatisfied() []int {
	var out []int
	for i, s := range nd.sat {
		if !s {
			out = append(out, i)
		}
	}
	return out
}

// edge describes what holds a deadlocked rank.
func (g *graph) edge(nd *node) Edge {
	r := nd.r
	e := Edge{From: r.Rank}
	var plain []int     // single ranks
	var groups []string // "ranks 0-99" of which one would do
	var colls []string  // "rank 3 (collective 2 on MPI_COMM_WORLD)"
	seen := map[any]bool{}
	others := 0 // ranks in groups, besides this one
	for _, i := range nd.unsatisfied() {
		switch t := nd.on[i]; {
		case t.rank >= 0:
			plain = append(plain, t.rank)
		case t.group != nil && !seen[t.group]:
			seen[t.group] = true
			gt := g.groupText(t.group)
			groups = append(groups, gt.render(r.Rank))
			others += gt.count - boolInt(inSorted(t.group.members, r.Rank))
		case t.coll != nil && !seen[t.coll]:
			seen[t.coll] = true
			colls = append(colls, g.collText(t.coll))
		}
	}
	slices.Sort(plain)
	plain = slices.Compact(plain)
	var what string
	switch {
	case r.Mode == Or:
		var parts []string
		if len(plain) > 0 {
			parts = append(parts, g.listText(plain).render(-1))
		}
		parts = append(append(parts, groups...), colls...)
		e.Any = len(parts) > 1 || len(plain) > 1 || others > 1
		what = strings.Join(parts, " or ")
		if e.Any {
			what = "any of " + what
		}
	default:
		var parts []string
		if len(plain) > 0 {
			parts = append(parts, g.listText(plain).render(-1))
		}
		for _, gt := range groups {
			parts = append(parts, "any of "+gt)
		}
		parts = append(parts, colls...)
		e.Any = len(parts) == 1 && len(groups) == 1 && others > 1
		what = strings.Join(parts, " and ")
	}
	call := r.Call
	if call == "" {
		call = "an MPI call"
	}
	if r.Args != "" {
		call += "(" + r.Args + ")"
	}
	if r.Polling {
		call += " in a loop"
	}
	e.Text = "rank " + strconv.Itoa(r.Rank) + " " + call + " waits for " + what
	return e
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// groupText is the text of a group's ranks, made once.
func (g *graph) groupText(gr *group) *ranksText {
	if gr.text == nil {
		gr.text = g.listText(gr.members)
	}
	return gr.text
}

// collText names the members a collective waits for, and the
// collective: "rank 3 (collective 2 on MPI_COMM_WORLD)"; made once.
func (g *graph) collText(c *coll) string {
	if c.text != "" {
		return c.text
	}
	var missing []int
	for _, m := range c.members {
		if !c.arrived[m] && !g.can[m] && g.known(m) {
			missing = append(missing, m)
		}
	}
	name := "collective " + strconv.FormatUint(c.key.coll, 10)
	if c.key.coll == 0 && c.w.Call != "" {
		name = c.w.Call // the shim's own collective in MPI_Finalize
	}
	if c.w.CommName != "" {
		name += " on " + c.w.CommName
	}
	c.text = g.listText(missing).render(-1) + " (" + name + ")"
	return c.text
}

// maxListed bounds the items a list of ranks spells out.
const maxListed = 16

// ranksText is a sorted list of ranks as items: runs of ranks that did
// not end, and single ranks that did ("1 (finalized)").
type ranksText struct {
	items []rankItem
	count int
}

type rankItem struct {
	lo, hi int
	fate   string
}

func (g *graph) listText(rs []int) *ranksText {
	t := &ranksText{count: len(rs)}
	for i := 0; i < len(rs); i++ {
		if f := g.fate(rs[i]); f != "" {
			t.items = append(t.items, rankItem{rs[i], rs[i], f})
			continue
		}
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 && g.fate(rs[j+1]) == "" {
			j++
		}
		t.items = append(t.items, rankItem{lo: rs[i], hi: rs[j]})
		i = j
	}
	return t
}

// render writes "rank 1" or "ranks 0, 2, 5-9", without rank skip (-1:
// none), each rank that ended marked, and at most maxListed items.
func (t *ranksText) render(skip int) string {
	items := t.items
	count := t.count
	// The item holding skip, found by binary search, is split around it.
	if k, ok := slices.BinarySearchFunc(items, skip, func(it rankItem, x int) int {
		switch {
		case it.hi < x:
			return -1
		case it.lo > x:
			return 1
		}
		return 0
	}); ok && skip >= 0 {
		it := items[k]
		var split []rankItem
		if it.lo < skip {
			split = append(split, rankItem{lo: it.lo, hi: skip - 1, fate: it.fate})
		}
		if skip < it.hi {
			split = append(split, rankItem{lo: skip + 1, hi: it.hi, fate: it.fate})
		}
		items = slices.Concat(items[:k:k], split, items[k+1:])
		count--
	}
	var parts []string
	listed := 0
	for _, it := range items {
		if len(parts) >= maxListed {
			break
		}
		switch {
		case it.fate != "":
			parts = append(parts, strconv.Itoa(it.lo)+it.fate)
		default:
			parts = ranklist.Run{First: it.lo, Last: it.hi, Step: 1}.Items(parts)
		}
		listed += it.hi - it.lo + 1
	}
	word := "ranks "
	if count == 1 {
		word = "rank "
	}
	s := word + strings.Join(parts, ", ")
	if listed < count {
		s += " and " + strconv.Itoa(count-listed) + " more"
	}
	return s
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

// Nodes of the explanation graph: ranks are their numbers, groups and
// collectives negative.
func groupNode(gr *group) int { return -1 - 2*gr.id }
func collNode(c *coll) int    { return -2 - 2*c.id }

// next returns the wait-for edges out of node v, among ranks that
// cannot continue: a deadlocked rank's unsatisfied waits, a group's
// members, a collective's members that have not arrived.
func (g *graph) next(v int) []int {
	if v >= 0 {
		nd := g.nodes[v]
		if nd == nil || g.can[v] {
			return nil // ended: where a chain stops
		}
		var out []int
		for _, i := range nd.unsatisfied() {
			switch t := nd.on[i]; {
			case t.rank >= 0:
				out = append(out, t.rank)
			case t.group != nil:
				out = append(out, groupNode(t.group))
			case t.coll != nil:
				out = append(out, collNode(t.coll))
			}
		}
		return out
	}
	if (-v)%2 == 1 {
		return g.groups[(-v-1)/2].members
	}
	c := g.collList[(-v-2)/2]
	var out []int
	for _, m := range c.members {
		if !c.arrived[m] && !g.can[m] && g.known(m) {
			out = append(out, m)
		}
	}
	return out
}

// core finds what closes the deadlock: a strongly connected set of
// deadlocked ranks (with the groups and collectives between them),
// preferably one with no way out to other deadlocked ranks, else the
// finished or dead ranks the chains end in. Inside the set, a cycle of
// needed waits is the explanation when there is one (AND), else the set
// is a knot (OR).
func (g *graph) core(deadlocked []int) (Shape, []int) {
	adj := map[int][]int{}
	var nodes []int
	var visit func(v int)
	visit = func(v int) { // the nodes reachable from the deadlocked ranks
		if _, ok := adj[v]; ok {
			return
		}
		adj[v] = g.next(v)
		nodes = append(nodes, v)
		for _, t := range adj[v] {
			visit(t)
		}
	}
	for _, n := range deadlocked {
		visit(n)
	}
	var pick []int
	bottom := false
	for _, c := range sccs(nodes, adj) {
		var ranks []int
		for _, v := range c {
			if v >= 0 {
				ranks = append(ranks, v)
			}
		}
		// One rank alone is a loop only on a direct edge to itself (a
		// path back through a group it is in is no wait).
		if len(ranks) == 0 || len(ranks) == 1 && !slices.Contains(adj[ranks[0]], ranks[0]) {
			continue
		}
		in := map[int]bool{}
		for _, v := range c {
			in[v] = true
		}
		closed := true
		for _, v := range c {
			for _, t := range adj[v] {
				if !in[t] && (t < 0 || g.nodes[t] != nil) {
					closed = false
				}
			}
		}
		if pick == nil || closed && !bottom || closed == bottom && minOf(ranks) < minOf(pick) {
			pick, bottom = c, closed
		}
	}
	if pick == nil {
		var ended []int
		for _, v := range nodes {
			if r := g.ranks[v]; v >= 0 && r != nil && (r.State == Finished || r.State == Dead) {
				ended = append(ended, v)
			}
		}
		slices.Sort(ended)
		return Ended, ended
	}
	var ranks []int
	for _, v := range pick {
		if v >= 0 {
			ranks = append(ranks, v)
		}
	}
	slices.Sort(ranks)
	// A cycle of waits each of which is needed (no wildcard group, no OR
	// of several) explains it alone; else it is a knot, all of it.
	needed := map[int][]int{}
	for _, v := range pick {
		if nd := g.nodes[v]; v >= 0 && nd != nil && nd.r.Mode == Or && len(nd.unsatisfied()) > 1 {
			continue
		}
		for _, t := range adj[v] {
			if t >= 0 || (-t)%2 == 0 {
				needed[v] = append(needed[v], t)
			}
		}
	}
	for _, start := range ranks[:min(len(ranks), maxCycleStarts)] {
		if c := cycleIn(pick, start, needed); c != nil {
			return Cycle, c
		}
	}
	return Knot, ranks
}

// maxCycleStarts bounds the ranks a search for a cycle starts from.
const maxCycleStarts = 8

func minOf(vs []int) int {
	m := -1
	for _, v := range vs {
		if v >= 0 && (m < 0 || v < m) {
			m = v
		}
	}
	return m
}

// sccs returns the strongly connected components of the graph adj over
// nodes (Tarjan's algorithm).
func sccs(nodes []int, adj map[int][]int) [][]int {
	index, low := map[int]int{}, map[int]int{}
	on := map[int]bool{}
	var stack []int
	var out [][]int
	var visit func(n int)
	visit = func(n int) {
		index[n], low[n] = len(index), len(index)
		stack = append(stack, n)
		on[n] = true
		for _, t := range adj[n] {
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
			out = append(out, c)
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	return out
}

// cycleIn returns the ranks of a shortest cycle through start inside the
// node set c over the edges adj, in order from start; nil if there is
// none.
func cycleIn(c []int, start int, adj map[int][]int) []int {
	in := map[int]bool{}
	for _, v := range c {
		in[v] = true
	}
	prev := map[int]int{}
	queue := []int{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, t := range adj[n] {
			if !in[t] {
				continue
			}
			if t == start {
				path := []int{n}
				for path[0] != start {
					path = append([]int{prev[path[0]]}, path...)
				}
				var ranks []int
				for _, v := range path {
					if v >= 0 {
						ranks = append(ranks, v)
					}
				}
				return ranks
			}
			if _, seen := prev[t]; !seen {
				prev[t] = n
				queue = append(queue, t)
			}
		}
	}
	return nil
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
		return "a knot: ranks " + list(r.Core) + " wait for one another, some for any of several"
	case Ended:
		if len(r.Core) == 1 {
			return "rank " + list(r.Core) + " has ended"
		}
		return "ranks " + list(r.Core) + " have ended"
	}
	return "no deadlock"
}

// list writes ranks folded: "0, 2, 5-9".
func list(rs []int) string { return ranklist.Format(rs, ranklist.Prose) }
