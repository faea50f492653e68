package datatype

// PendingSet lives with the tests: the shim keeps its pending buffers in C
// (shim/pending.c) and asks Overlap only when bounds intersect, so only
// the benchmarks that compare the two approaches (docs/PERFORMANCE.md,
// "Pending set") use it.
//
// PendingSet holds the buffers of operations in flight (nonblocking sends
// and receives, persistent requests, one-sided windows), each under an id
// the caller chooses (a request handle, say), and answers which of them a
// new buffer overlaps.
//
// The buffers' bounds are kept in a treap ordered by lower bound and
// augmented with the largest upper bound of each subtree, so a query visits
// only subtrees that can reach it: O(log n) expected when nothing is hit,
// O(h log n) for h candidates, each then checked exactly with Overlap.
// Nodes live in one slice and are reused, so a steady state of inserts and
// removes allocates nothing.
//
// The zero value is an empty set. A PendingSet is not safe for concurrent
// use: the caller holds a lock around it (the engine keeps one set per
// rank, touched by whichever thread makes the MPI call).
type PendingSet struct {
	nodes []pnode // nodes[0] is the nil sentinel
	free  []int32
	root  int32
	ids   map[uint64]int32
	rand  uint64
	q     pquery // scratch of the running query, kept to allocate nothing
}

type pnode struct {
	buf         Buffer
	lay         *layout
	lo, hi      int64 // bounds of the buffer's data
	maxHi       int64 // largest hi in the subtree
	left, right int32
	prio        uint64
	id          uint64
}

// Len is the number of buffers in the set.
func (p *PendingSet) Len() int { return len(p.ids) }

// Insert adds buffer b under id, replacing the buffer id had.
func (p *PendingSet) Insert(id uint64, b Buffer) {
	if p.ids == nil {
		p.ids = make(map[uint64]int32)
		p.nodes = make([]pnode, 1, 16)
		p.rand = 0x9e3779b97f4a7c15
	}
	p.Remove(id)
	var n int32
	if k := len(p.free); k > 0 {
		n, p.free = p.free[k-1], p.free[:k-1]
	} else {
		p.nodes = append(p.nodes, pnode{})
		n = int32(len(p.nodes) - 1)
	}
	lo, hi := b.Bounds()
	var lay *layout
	if !b.Empty() {
		lay = layoutOf(b.Type)
	}
	p.rand ^= p.rand << 13 // xorshift: priorities need only be unpredictable to the data
	p.rand ^= p.rand >> 7
	p.rand ^= p.rand << 17
	p.nodes[n] = pnode{buf: b, lay: lay, lo: lo, hi: hi, maxHi: hi, prio: p.rand, id: id}
	p.ids[id] = n
	p.root = p.insert(p.root, n)
}

// Remove deletes the buffer under id and reports whether there was one.
func (p *PendingSet) Remove(id uint64) bool {
	n, ok := p.ids[id]
	if !ok {
		return false
	}
	delete(p.ids, id)
	p.root = p.remove(p.root, n)
	p.nodes[n] = pnode{}
	p.free = append(p.free, n)
	return true
}

// Get returns the buffer under id.
func (p *PendingSet) Get(id uint64) (Buffer, bool) {
	n, ok := p.ids[id]
	if !ok {
		return Buffer{}, false
	}
	return p.nodes[n].buf, true
}

// Query appends to dst the ids of the buffers that share a byte with b, in
// increasing order of their lower bounds, and returns the extended slice.
func (p *PendingSet) Query(b Buffer, dst []uint64) []uint64 {
	q := p.prepare(b)
	if q == nil {
		return dst
	}
	p.visit(p.root, q, func(id uint64, _ int64) bool {
		dst = append(dst, id)
		return true
	})
	return dst
}

// Each calls fn with the id of every buffer that shares a byte with b and
// the lowest shared address, until fn returns false. fn must not use the
// set.
func (p *PendingSet) Each(b Buffer, fn func(id uint64, addr int64) bool) {
	if q := p.prepare(b); q != nil {
		p.visit(p.root, q, fn)
	}
}

type pquery struct {
	lo, hi int64
	side   side
	other  side
}

func (p *PendingSet) prepare(b Buffer) *pquery {
	if p.root == 0 || b.Empty() {
		return nil
	}
	q := &p.q
	q.lo, q.hi = b.Bounds()
	q.side.init(b.Addr, b.Count, b.Type.Extent(), layoutOf(b.Type))
	return q
}

func (p *PendingSet) visit(t int32, q *pquery, fn func(uint64, int64) bool) bool {
	for t != 0 {
		n := &p.nodes[t]
		if n.maxHi <= q.lo {
			return true
		}
		if !p.visit(n.left, q, fn) {
			return false
		}
		if n.lo >= q.hi {
			return true // and so does everything to the right
		}
		if n.hi > q.lo && n.lay != nil {
			q.other.init(n.buf.Addr, n.buf.Count, n.buf.Type.Extent(), n.lay)
			if at, ok := overlapSides(&q.side, &q.other); ok && !fn(n.id, at) {
				return false
			}
		}
		t = n.right
	}
	return true
}

// less orders nodes by lower bound, then id.
func (p *PendingSet) less(a, b int32) bool {
	x, y := &p.nodes[a], &p.nodes[b]
	return x.lo < y.lo || x.lo == y.lo && x.id < y.id
}

func (p *PendingSet) fix(t int32) {
	n := &p.nodes[t]
	n.maxHi = n.hi
	if n.left != 0 {
		n.maxHi = max(n.maxHi, p.nodes[n.left].maxHi)
	}
	if n.right != 0 {
		n.maxHi = max(n.maxHi, p.nodes[n.right].maxHi)
	}
}

func (p *PendingSet) insert(t, n int32) int32 {
	if t == 0 {
		return n
	}
	if p.less(n, t) {
		p.nodes[t].left = p.insert(p.nodes[t].left, n)
		if l := p.nodes[t].left; p.nodes[l].prio > p.nodes[t].prio {
			p.nodes[t].left = p.nodes[l].right
			p.nodes[l].right = t
			p.fix(t)
			t = l
		}
	} else {
		p.nodes[t].right = p.insert(p.nodes[t].right, n)
		if r := p.nodes[t].right; p.nodes[r].prio > p.nodes[t].prio {
			p.nodes[t].right = p.nodes[r].left
			p.nodes[r].left = t
			p.fix(t)
			t = r
		}
	}
	p.fix(t)
	return t
}

// remove takes node n out of the subtree at t and returns the new root.
func (p *PendingSet) remove(t, n int32) int32 {
	if t == 0 {
		return 0
	}
	if t == n {
		return p.merge(p.nodes[t].left, p.nodes[t].right)
	}
	if p.less(n, t) {
		p.nodes[t].left = p.remove(p.nodes[t].left, n)
	} else {
		p.nodes[t].right = p.remove(p.nodes[t].right, n)
	}
	p.fix(t)
	return t
}

// merge joins two treaps, every key of a below every key of b.
func (p *PendingSet) merge(a, b int32) int32 {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	case p.nodes[a].prio > p.nodes[b].prio:
		p.nodes[a].right = p.merge(p.nodes[a].right, b)
		p.fix(a)
		return a
	default:
		p.nodes[b].left = p.merge(a, p.nodes[b].left)
		p.fix(b)
		return b
	}
}
