package datatype

// Buffer is count instances of a type at an address: the memory an MPI call
// reads or writes. Addr is absolute (a pointer as an integer); instance r
// starts at Addr + r*Type.Extent().
type Buffer struct {
	Addr  int64
	Type  *Type
	Count int64
}

// Empty reports whether the buffer holds no byte of data.
func (b Buffer) Empty() bool { return b.Type == nil || b.Count <= 0 || b.Type.size == 0 }

// Bounds returns [lo, hi), the bytes between the first and one past the last
// byte of data, from the type's true bounds alone; lo == hi when empty.
func (b Buffer) Bounds() (lo, hi int64) {
	if b.Empty() {
		return b.Addr, b.Addr
	}
	reach := (b.Count - 1) * b.Type.Extent()
	return b.Addr + b.Type.trueLB + min(reach, 0), b.Addr + b.Type.trueUB + max(reach, 0)
}

// Overlap reports whether a byte belongs to the data of both buffers, and
// the lowest such address. Bounds reject first; then each buffer is a short
// list of strided blocks (usually one), and blocks are intersected by
// arithmetic: O(1) when both are regular with equal strides (two planes of
// one array, one type at two addresses), O(dimensions) for a contiguous
// block against a lattice, and otherwise by walking the side with fewer
// blocks with an O(1) check per block, O(min(n, m)). Irregular layouts
// (indexed types) cost O(min(n, m) log max(n, m)) in their numbers of
// blocks. Nothing is allocated; the type layouts are built once per type.
func Overlap(a, b Buffer) (addr int64, ok bool) {
	alo, ahi := a.Bounds()
	blo, bhi := b.Bounds()
	if alo >= ahi || blo >= bhi || alo >= bhi || blo >= ahi {
		return 0, false
	}
	la, lb := layoutOf(a.Type), layoutOf(b.Type)
	if len(la.blocks) == 1 && len(lb.blocks) == 1 {
		// the common case, kept small: two strided blocks on the stack
		var x, y shape
		if x.counted(la, 0, a.Addr, a.Count, a.Type.Extent()) && y.counted(lb, 0, b.Addr, b.Count, b.Type.Extent()) {
			return firstCommon(&x, &y)
		}
	}
	var sa, sb side
	sa.init(a.Addr, a.Count, a.Type.Extent(), la)
	sb.init(b.Addr, b.Count, b.Type.Extent(), lb)
	return overlapSides(&sa, &sb)
}

// counted loads block i of l at addr with count instances ext bytes apart
// folded in as one more dimension, and reports whether that nests.
func (s *shape) counted(l *layout, i, addr, count, ext int64) bool {
	l.load(i, addr, s)
	switch {
	case count == 1:
		return true
	case ext <= 0:
	case s.n == 0 && ext == s.len:
		s.len *= count
		return true
	case s.n > 0 && ext == s.d[s.n-1].Count*s.d[s.n-1].Stride:
		s.d[s.n-1].Count *= count
		return true
	case ext >= l.blocks[i].span: // instances follow one another: the usual case
		s.d[s.n] = Dim{count, ext}
		s.n++
		return true
	}
	s.d[s.n] = Dim{count, ext}
	r := normalize(s.off, s.len, s.d[:s.n+1])
	s.off, s.len, s.n = r.off, r.len, r.n
	return r.bad < 0 && !r.empty
}

// SelfOverlaps reports whether two entries of the buffer's type map share a
// byte: the type overlaps itself, or count instances are enough for
// neighbouring instances to meet (see Type.SelfOverlapCount).
func (b Buffer) SelfOverlaps() bool {
	if b.Empty() {
		return false
	}
	if b.Type.SelfOverlaps() {
		return true
	}
	c := b.Type.SelfOverlapCount()
	return c > 0 && b.Count >= c
}

// SelfOverlapCount is the smallest count at which a buffer of count
// instances of t has two entries sharing a byte: 1 when one instance
// already does (SelfOverlaps), 0 when no count does. Only a type whose
// extent is smaller than its true extent (a resized type, or a negative or
// zero extent) can reach a finite count above one: instance 0 and instance
// k meet when the layout meets itself moved by k extents. It is computed
// once per type, trying k = 1, 2, ... up to true extent / |extent| with the
// strided check, or when that is cheaper, scoring every pair of the
// instance's blocks: O(min(true extent/|extent| * check, blocks²)).
func (t *Type) SelfOverlapCount() int64 {
	l := layoutOf(t)
	l.socOnce.Do(func() { l.soc = l.selfOverlapCount() })
	return l.soc
}

func (l *layout) selfOverlapCount() int64 {
	switch {
	case len(l.blocks) == 0:
		return 0
	case l.overlap:
		return 1
	case l.ext == 0:
		return 2
	}
	e, width := max(l.ext, -l.ext), l.hi-l.lo
	if e >= width {
		return 0
	}
	shifts := ceilDiv(width, e) - 1 // k*e < width for k <= shifts
	var nblocks int64
	var tmp shape
	for i := range l.blocks {
		l.load(int64(i), 0, &tmp)
		nblocks = min(nblocks+tmp.blocksFrom(0), 1<<31)
	}
	if nblocks*nblocks < shifts {
		return l.pairsOverlapCount(e)
	}
	var a, b side
	a.init(0, 1, e, l)
	for k := int64(1); k <= shifts; k++ {
		b.init(k*e, 1, e, l)
		if _, ok := overlapSides(&a, &b); ok {
			return k + 1
		}
	}
	return 0
}

// pairsOverlapCount finds the smallest k >= 1 for which a block q moved by
// k*e meets a block p: k*e in (p.Start-q.End, p.End-q.Start).
func (l *layout) pairsOverlapCount(e int64) int64 {
	var s side
	s.init(0, 1, e, l)
	var bs []Block
	var tmp shape
	for i := int64(0); i < s.n; i++ {
		sh := s.shape(i, &tmp)
		sh.eachBlock(func(start int64) { bs = append(bs, Block{start, start + sh.len}) })
	}
	best := int64(0)
	for _, p := range bs {
		for _, q := range bs {
			k := max(1, floorDiv(p.Start-q.End, e)+1)
			if k*e < p.End-q.Start && (best == 0 || k < best) {
				best = k
			}
		}
	}
	if best == 0 {
		return 0
	}
	return best + 1
}

// foldMax is how many blocks a layout may have for a buffer's count to be
// folded into each of them as one more dimension; longer layouts, and
// counts that do not nest, are handled instance by instance.
const foldMax = 4

// side is one buffer prepared for intersection: a sequence of shapes,
// either the layout's blocks at the buffer's address with the count folded
// in, or every block of every instance.
type side struct {
	lay              *layout
	addr, count, ext int64
	n, nb            int64 // shapes; blocks per instance
	inst             bool  // shape i is block i%nb of instance i/nb
	sorted           bool  // shapes come by offset, with disjoint bounds
	pre              bool  // shapes[:n] hold the shapes, count folded in
	shapes           [foldMax]shape
}

func (s *side) init(addr, count, ext int64, lay *layout) {
	s.lay, s.addr, s.count, s.ext = lay, addr, count, ext
	s.nb = int64(len(lay.blocks))
	s.n, s.inst, s.pre = s.nb, false, false
	if count == 1 {
		s.sorted = lay.disjoint
		return
	}
	if s.nb <= foldMax {
		ok := true
		for i := int64(0); i < s.nb && ok; i++ {
			ok = s.shapes[i].counted(lay, i, addr, count, ext)
		}
		if ok {
			s.pre, s.sorted = true, true
			var maxEnd int64
			for i := int64(0); i < s.nb; i++ {
				if i > 0 && s.shapes[i].off < maxEnd {
					s.sorted = false
				}
				maxEnd = max(maxEnd, s.shapes[i].end())
			}
			return
		}
	}
	s.inst, s.n = true, count*s.nb
	s.sorted = lay.disjoint && max(ext, -ext) >= lay.hi-lay.lo
}

// shape returns shape i, in buf unless it is precomputed.
func (s *side) shape(i int64, buf *shape) *shape {
	if s.pre {
		return &s.shapes[i]
	}
	j, shift := s.locate(i)
	s.lay.load(j, shift, buf)
	return buf
}

// locate maps shape i to a layout block and the shift of its instance,
// instances taken in address order.
func (s *side) locate(i int64) (block, shift int64) {
	if !s.inst {
		return i, s.addr
	}
	q := i / s.nb
	if s.ext < 0 {
		q = s.count - 1 - q
	}
	return i % s.nb, s.addr + q*s.ext
}

// bounds are the first byte of shape i and one past its last.
func (s *side) bounds(i int64) (lo, hi int64) {
	if s.pre {
		return s.shapes[i].off, s.shapes[i].end()
	}
	j, shift := s.locate(i)
	b := &s.lay.blocks[j]
	return b.off + shift, b.off + shift + b.span
}

// firstEndAbove is the first shape of a sorted side that ends above lo.
func (s *side) firstEndAbove(lo int64) int64 {
	i, j := int64(0), s.n
	for i < j {
		h := int64(uint64(i+j) >> 1)
		if _, hi := s.bounds(h); hi > lo {
			j = h
		} else {
			i = h + 1
		}
	}
	return i
}

// overlapSides intersects every pair of shapes whose bounds meet and keeps
// the lowest hit: the shorter side in the outer loop, the longer one found
// by binary search when sorted, both loops stopping at the best hit so far.
func overlapSides(a, b *side) (int64, bool) {
	var ta, tb shape
	if a.n == 1 && b.n == 1 {
		return firstCommon(a.shape(0, &ta), b.shape(0, &tb))
	}
	if a.n > b.n {
		a, b = b, a
	}
	var best int64
	found := false
	for i := int64(0); i < a.n; i++ {
		lo, hi := a.bounds(i)
		if found && lo >= best {
			if a.sorted {
				break
			}
			continue
		}
		var j int64
		if b.sorted {
			j = b.firstEndAbove(lo)
		}
		var sa *shape
		for ; j < b.n; j++ {
			blo, bhi := b.bounds(j)
			if b.sorted && (blo >= hi || found && blo >= best) {
				break
			}
			if blo >= hi || bhi <= lo {
				continue
			}
			if sa == nil {
				sa = a.shape(i, &ta)
			}
			if at, ok := firstCommon(sa, b.shape(j, &tb)); ok && (!found || at < best) {
				best, found = at, true
			}
		}
	}
	return best, found
}
