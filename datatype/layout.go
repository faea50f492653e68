package datatype

import (
	"slices"
	"strconv"
	"sync"
)

// Block is a run of contiguous bytes [Start, End), in bytes from the start
// of the buffer. String prints the inclusive pair "(first,last)", the way
// byte ranges are usually written when checking a type map by hand.
type Block struct {
	Start, End int64
}

// Last is the last byte of the block, End-1.
func (b Block) Last() int64 { return b.End - 1 }

func (b Block) String() string {
	return "(" + strconv.FormatInt(b.Start, 10) + "," + strconv.FormatInt(b.End-1, 10) + ")"
}

// Blocks returns the bytes the data of count instances of t occupies as
// sorted, disjoint, non-adjacent blocks: the compact block list. It expands
// the strided layout, so its size, and its cost, grow with the number of
// blocks; the overlap checks use the strided form and never build this.
func (t *Type) Blocks(count int64) []Block {
	if count <= 0 || t.size == 0 {
		return nil
	}
	var s side
	s.init(0, count, t.Extent(), layoutOf(t))
	var total int64
	var tmp shape
	for i := int64(0); i < s.n; i++ {
		total += s.shape(i, &tmp).blocksFrom(0)
	}
	out := make([]Block, 0, min(total, 1<<20))
	for i := int64(0); i < s.n; i++ {
		sh := s.shape(i, &tmp)
		sh.eachBlock(func(start int64) { out = append(out, Block{start, start + sh.len}) })
	}
	if !s.sorted {
		slices.SortFunc(out, func(a, b Block) int { return cmpInt(a.Start, b.Start) })
	}
	return mergeBlocks(out)
}

// mergeBlocks joins sorted blocks that touch or overlap, in place.
func mergeBlocks(bs []Block) []Block {
	if len(bs) == 0 {
		return bs
	}
	k := 0
	for _, b := range bs[1:] {
		if b.Start <= bs[k].End {
			bs[k].End = max(bs[k].End, b.End)
			continue
		}
		k++
		bs[k] = b
	}
	return bs[:k+1]
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Strided returns the layout of count instances of t as normalised strided
// blocks (see Strided), sorted by offset, from the start of the buffer. The
// count becomes the outermost dimension of each block, merged with the
// others where it continues them (count instances of a contiguous type are
// one block); where it cannot nest, each instance is listed on its own.
// Regular types give a handful of blocks whatever their element counts.
// Each block is free of repeated bytes; different blocks share bytes only
// when the buffer overlaps itself (Buffer.SelfOverlaps).
func (t *Type) Strided(count int64) []Strided {
	if count <= 0 || t.size == 0 {
		return nil
	}
	var s side
	s.init(0, count, t.Extent(), layoutOf(t))
	out := make([]Strided, 0, s.n)
	var tmp shape
	for i := int64(0); i < s.n; i++ {
		out = append(out, s.shape(i, &tmp).strided())
	}
	if !s.sorted {
		slices.SortStableFunc(out, func(a, b Strided) int { return cmpInt(a.Off, b.Off) })
	}
	return out
}

// SelfOverlaps reports whether two entries of t's type map share a byte.
// MPI forbids receiving into such a type (MPI-4.1 §5.1.11: "a datatype used
// in a receive must not specify overlapping entries"). It is decided from
// the constructor tree, once per type.
func (t *Type) SelfOverlaps() bool { return layoutOf(t).overlap }

// layout is the byte layout of one instance of a type, built once from the
// constructor tree and shared: normalised strided blocks, sorted by offset.
// Its blocks are an exact account of the type map (each byte as many times
// as entries cover it) unless overlap is set, in which case they only keep
// the set of bytes.
type layout struct {
	blocks   []lblock
	arena    []Dim // the blocks' dimensions
	overlap  bool  // two entries of one instance share a byte
	disjoint bool  // the blocks' bounds [off, off+span) do not intersect
	lo, hi   int64 // the bytes the data spans; lo == hi when there is none
	nbytes   int64 // bytes the blocks hold: the type size, when there is no overlap

	ext     int64 // the type's extent, for SelfOverlapCount
	socOnce sync.Once
	soc     int64
}

type lblock struct {
	off, len, span int64
	d0, nd         int32 // dimensions in arena[d0:d0+nd]
}

func (l *layout) dims(b *lblock) []Dim { return l.arena[b.d0 : b.d0+b.nd : b.d0+b.nd] }

// load puts block i, moved by shift bytes, into s.
func (l *layout) load(i int64, shift int64, s *shape) {
	b := &l.blocks[i]
	s.off, s.len, s.n = b.off+shift, b.len, int(b.nd)
	copy(s.d[:], l.dims(b))
}

// buildLayout derives t's layout from its kids and its children's layouts:
// each block of a child, repeated by the kid's count and the constructor's
// strides, becomes one strided block, normalised so that dimensions that
// continue each other merge. The cost depends on the number of kids and of
// the children's blocks, not on counts: a vector of a billion doubles is
// one block, built in one step.
func buildLayout(t *Type) *layout {
	var b builder
	switch k := t.kids.(type) {
	case nil: // a basic type or a marker
		if t.size > 0 {
			b.add(0, t.size, nil)
		}
	case *stridedKids:
		if t.Combiner == CombinerDup || t.Combiner == CombinerResized {
			c := layoutOf(k.old)
			return &layout{blocks: c.blocks, arena: c.arena, overlap: c.overlap, disjoint: c.disjoint,
				lo: c.lo, hi: c.hi, nbytes: c.nbytes, ext: t.Extent()}
		}
		if k.count > 0 && k.blockLen > 0 {
			b.addChild(0, k.old, Dim{k.blockLen, k.old.Extent()}, Dim{k.count, k.stride})
		}
	case *listKids:
		for i, n := int64(0), k.len(); i < n; i++ {
			disp, cnt, c := k.at(i)
			if cnt > 0 {
				b.addChild(disp, c, Dim{cnt, c.Extent()})
			}
		}
	case *gridKids:
		b.addGrid(k)
	}
	l := b.finish()
	l.ext = t.Extent()
	return l
}

// builder collects normalised blocks.
type builder struct {
	blocks  []lblock
	arena   []Dim
	overlap bool
	scratch []Dim
}

// addChild adds every block of child c at disp, repeated along extra.
func (b *builder) addChild(disp int64, c *Type, extra ...Dim) {
	cl := layoutOf(c)
	if len(cl.blocks) == 0 {
		return
	}
	b.overlap = b.overlap || cl.overlap
	for i := range cl.blocks {
		blk := &cl.blocks[i]
		b.scratch = append(append(b.scratch[:0], cl.dims(blk)...), extra...)
		b.add(disp+blk.off, blk.len, b.scratch)
	}
}

// add normalises the block (off, l, dims), changing dims, and keeps the
// result. A dimension that does not nest is split into its repetitions,
// and so is the outermost one of a block with too many dimensions.
func (b *builder) add(off, l int64, dims []Dim) {
	r := normalize(off, l, dims)
	b.overlap = b.overlap || r.overlap
	switch {
	case r.empty:
		return
	case r.bad >= 0:
		d := dims[r.bad]
		rest := append(clone(dims[:r.bad]), dims[r.bad+1:r.n]...)
		for i := int64(0); i < d.Count; i++ {
			b.add(r.off+i*d.Stride, r.len, clone(rest))
		}
		return
	case r.n > maxDims-1:
		d := dims[r.n-1]
		for i := int64(0); i < d.Count; i++ {
			b.add(r.off+i*d.Stride, r.len, clone(dims[:r.n-1]))
		}
		return
	}
	b.push(r.off, r.len, dims[:r.n])
}

func (b *builder) push(off, l int64, dims []Dim) {
	span := l
	for _, d := range dims {
		span += (d.Count - 1) * d.Stride
	}
	b.blocks = append(b.blocks, lblock{off: off, len: l, span: span, d0: int32(len(b.arena)), nd: int32(len(dims))})
	b.arena = append(b.arena, dims...)
}

// addGrid lays out a subarray or darray: the product, over the array's
// dimensions, of the owned indices of each, times the blocks of the old
// type. The owned indices of a dimension are one run (subarray, block
// distribution) or evenly spaced runs of equal length with perhaps a
// shorter last one (cyclic distribution): one or two strided pieces.
func (b *builder) addGrid(g *gridKids) {
	pieces := make([][]gridPiece, len(g.dims))
	for i := range g.dims {
		pieces[i] = gridPieces(&g.dims[i])
		if len(pieces[i]) == 0 {
			return
		}
	}
	cl := layoutOf(g.old)
	if len(cl.blocks) == 0 {
		return
	}
	b.overlap = b.overlap || cl.overlap
	pick := make([]int, len(pieces))
	for {
		var off int64
		var extra []Dim
		for i, p := range pick {
			pc := &pieces[i][p]
			off += pc.off
			for _, d := range pc.dims {
				extra = append(extra, Dim{d.Count, d.Stride})
			}
		}
		for i := range cl.blocks {
			blk := &cl.blocks[i]
			dims := append(clone(cl.dims(blk)), extra...)
			b.add(off+blk.off, blk.len, dims)
		}
		i := len(pick) - 1
		for ; i >= 0; i-- {
			if pick[i]++; pick[i] < len(pieces[i]) {
				break
			}
			pick[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

type gridPiece struct {
	off  int64
	dims []Dim
}

func gridPieces(d *gridDim) []gridPiece {
	q := d.seq
	switch {
	case q.n == 0:
		return nil
	case q.n == 1:
		return []gridPiece{{q.first * d.stride, []Dim{{q.lastLen, d.stride}}}} // the only run is the last
	}
	full := q.n
	if q.lastLen < q.blen {
		full--
	}
	out := []gridPiece{{q.first * d.stride, []Dim{{q.blen, d.stride}, {full, q.period * d.stride}}}}
	if q.lastLen < q.blen {
		last := q.run(q.n - 1)
		out = append(out, gridPiece{last.start * d.stride, []Dim{{last.len, d.stride}}})
	}
	return out
}

// finish compacts the blocks and settles the flags. Runs of equal blocks at
// equal distances (an indexed type with regular displacements, the fields
// of a struct inside a vector) become one block with one more dimension,
// first in type-map order, then in address order. Then blocks whose bounds
// meet are intersected pairwise for the overlap flag, and touching single
// blocks are joined.
func (b *builder) finish() *layout {
	b.compress()
	b.sort()
	b.compress()
	l := &layout{blocks: b.blocks, arena: b.arena, overlap: b.overlap}
	if !l.overlap {
		l.overlap = l.sweep()
	}
	l.joinSingles()
	l.disjoint = true
	var maxEnd int64
	for i := range l.blocks {
		blk := &l.blocks[i]
		if i == 0 {
			l.lo, maxEnd = blk.off, blk.off+blk.span
		} else if blk.off < maxEnd {
			l.disjoint = false
		}
		maxEnd = max(maxEnd, blk.off+blk.span)
		n := blk.len
		for _, d := range l.dims(blk) {
			n *= d.Count
		}
		l.nbytes += n
	}
	l.hi = maxEnd
	if len(l.blocks) == 0 {
		l.lo, l.hi = 0, 0
	}
	return l
}

func (b *builder) sort() {
	slices.SortStableFunc(b.blocks, func(x, y lblock) int {
		if c := cmpInt(x.off, y.off); c != 0 {
			return c
		}
		return cmpInt(x.span, y.span)
	})
}

// compress replaces each maximal run of blocks with equal length and
// dimensions at a constant distance by one block.
func (b *builder) compress() {
	if len(b.blocks) < 2 {
		return
	}
	old, oldArena := b.blocks, b.arena
	dims := func(x *lblock) []Dim { return oldArena[x.d0 : x.d0+x.nd] }
	same := func(x, y *lblock) bool { return x.len == y.len && slices.Equal(dims(x), dims(y)) }
	b.blocks, b.arena = nil, nil
	for i := 0; i < len(old); {
		j := i + 1
		var step int64
		if j < len(old) && same(&old[i], &old[j]) && old[j].off != old[i].off {
			step = old[j].off - old[i].off
			for j < len(old) && same(&old[i], &old[j]) && old[j].off-old[j-1].off == step {
				j++
			}
		}
		x := &old[i]
		if j-i == 1 {
			b.push(x.off, x.len, dims(x))
		} else {
			b.add(x.off, x.len, append(clone(dims(x)), Dim{int64(j - i), step}))
		}
		i = j
	}
}

// sweep reports whether two blocks share a byte. Blocks are sorted by
// offset; each is checked against the earlier ones whose bounds reach it.
func (l *layout) sweep() bool {
	var active []int
	var x, y shape
	for j := range l.blocks {
		l.load(int64(j), 0, &y)
		k := 0
		for _, i := range active {
			if l.blocks[i].off+l.blocks[i].span > y.off {
				active[k] = i
				k++
			}
		}
		active = active[:k]
		for _, i := range active {
			l.load(int64(i), 0, &x)
			if _, ok := firstCommon(&x, &y); ok {
				return true
			}
		}
		active = append(active, j)
	}
	return false
}

// joinSingles joins neighbouring blocks without dimensions that touch or
// overlap.
func (l *layout) joinSingles() {
	if len(l.blocks) < 2 {
		return
	}
	k := 0
	for i := 1; i < len(l.blocks); i++ {
		cur, nx := &l.blocks[k], l.blocks[i]
		if cur.nd == 0 && nx.nd == 0 && nx.off <= cur.off+cur.len {
			cur.len = max(cur.len, nx.off+nx.len-cur.off)
			cur.span = cur.len
			continue
		}
		k++
		l.blocks[k] = nx
	}
	l.blocks = l.blocks[:k+1]
}

var predefinedLayouts [numBasic]struct {
	once sync.Once
	lay  *layout
}

// predefinedLayout returns the layout of a predefined type, built on first
// use and kept for good, as the types are.
func predefinedLayout(t *Type) *layout {
	p := &predefinedLayouts[t.Basic]
	p.once.Do(func() { p.lay = buildLayout(t) })
	return p.lay
}

// layoutOf returns t's layout, built once per type: types are immutable
// after construction, so the layout lives and dies with the type.
func layoutOf(t *Type) *layout {
	if t.Combiner == CombinerNamed {
		return predefinedLayout(t)
	}
	t.layOnce.Do(func() { t.lay = buildLayout(t) })
	return t.lay
}
