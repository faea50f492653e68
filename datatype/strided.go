package datatype

import (
	"strconv"
	"strings"
)

// Strided blocks are the compact form of a layout: one of them stands for
// any number of equal blocks placed on a multi-dimensional lattice, so that
// a plane of a k×k×k array is one value whatever k, and two such values can
// be intersected by arithmetic instead of by walking their blocks.

// maxDims bounds the dimensions of one strided block so that the hot path
// can keep blocks on the stack. A type's layout keeps at most maxDims-1,
// leaving one for a buffer's count; a block that would need more is split
// along its outermost dimension (a 5-D subarray whose dimensions cannot
// merge needs four, plus the count).
const maxDims = 6

// Dim is one dimension of a strided block: Count repetitions of everything
// inside it, Stride bytes apart.
type Dim struct {
	Count  int64
	Stride int64 // in bytes
}

// Strided is a set of bytes: the blocks of Len contiguous bytes that start
// at Off + i_0*Dims[0].Stride + i_1*Dims[1].Stride + ..., for every
// 0 <= i_d < Dims[d].Count. Offsets are in bytes from the start of the
// buffer (or absolute, for a buffer at an address).
//
// The blocks returned by this package are normalised: Len > 0, every Count
// >= 2, strides positive and increasing, and each stride at least the span
// of what it repeats (Dims nest), so the blocks are disjoint and come in
// address order when the index is counted with i_0 fastest. Dimensions that
// continue one another are merged (a stride equal to Len grows Len, a
// stride equal to the previous count times stride multiplies that count),
// which is what makes the plane of an array one block.
type Strided struct {
	Off, Len int64 // in bytes
	Dims     []Dim // innermost first
}

// Span is the distance in bytes from the first byte to one past the last.
func (s Strided) Span() int64 {
	sp := s.Len
	for _, d := range s.Dims {
		sp += (d.Count - 1) * d.Stride
	}
	return sp
}

// NumBlocks is the number of contiguous blocks s stands for.
func (s Strided) NumBlocks() int64 {
	n := int64(1)
	for _, d := range s.Dims {
		n *= d.Count
	}
	return n
}

// String prints offset+length, then count/stride for each dimension,
// innermost first: "0+8 x4096/32768" is 4096 blocks of 8 bytes, 32768
// bytes apart, the first at offset 0.
func (s Strided) String() string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(s.Off, 10) + "+" + strconv.FormatInt(s.Len, 10))
	for _, d := range s.Dims {
		b.WriteString(" x" + strconv.FormatInt(d.Count, 10) + "/" + strconv.FormatInt(d.Stride, 10))
	}
	return b.String()
}

// shape is a Strided held by value, so that the overlap checks allocate
// nothing. It is normalised unless said otherwise.
type shape struct {
	off, len int64
	n        int
	d        [maxDims]Dim
}

func (s *shape) span() int64 {
	sp := s.len
	for i := 0; i < s.n; i++ {
		sp += (s.d[i].Count - 1) * s.d[i].Stride
	}
	return sp
}

func (s *shape) end() int64 { return s.off + s.span() }

// blocksFrom is the number of sub-blocks of s at level p (the product of
// the counts of dimensions p and up), saturated so that it cannot wrap.
func (s *shape) blocksFrom(p int) int64 {
	n := int64(1)
	for i := p; i < s.n; i++ {
		if c := s.d[i].Count; n > (1<<62)/c {
			return 1 << 62
		} else {
			n *= c
		}
	}
	return n
}

func (s *shape) strided() Strided {
	return Strided{Off: s.off, Len: s.len, Dims: clone(s.d[:s.n])}
}

// norm is the outcome of normalising a strided block.
type norm struct {
	off, len int64
	n        int  // dimensions left in dims[:n]
	bad      int  // -1, or the index in dims of a dimension that does not nest
	overlap  bool // two of the blocks shared a byte
	empty    bool // the block holds no byte
}

// normalize brings the block (off, l, dims) into the normalised form that
// Strided documents, rearranging dims in place. A count of one is dropped; a
// negative stride is turned around; a stride of zero, or a stride below the
// block length, repeats bytes and sets overlap (the result then stands for
// the union of the bytes). When a dimension does not nest with the ones
// inside it (its stride is positive but below their span, so that the
// repetitions interleave), normalize stops: dims[:bad] are normalised,
// dims[bad] is the offending dimension and dims[bad+1:n] the remaining ones,
// sorted, for the caller to split.
func normalize(off, l int64, dims []Dim) (r norm) {
	r.bad = -1
	if l <= 0 {
		r.empty = true
		return r
	}
	m := 0
	for _, d := range dims {
		switch {
		case d.Count <= 0:
			r.empty = true
			return r
		case d.Count == 1:
			continue
		case d.Stride == 0:
			r.overlap = true
			continue
		case d.Stride < 0:
			off += (d.Count - 1) * d.Stride
			d.Stride = -d.Stride
		}
		dims[m] = d
		m++
	}
	for i := 1; i < m; i++ { // few dimensions: insertion sort
		for j := i; j > 0 && dims[j].Stride < dims[j-1].Stride; j-- {
			dims[j], dims[j-1] = dims[j-1], dims[j]
		}
	}
	k, span := 0, l
	for i := 0; i < m; i++ {
		d := dims[i]
		switch {
		case k == 0 && d.Stride <= l:
			if d.Stride < l {
				r.overlap = true
			}
			l += (d.Count - 1) * d.Stride
			span = l
		case k > 0 && d.Stride == dims[k-1].Count*dims[k-1].Stride:
			dims[k-1].Count *= d.Count
			span += (d.Count - 1) * d.Stride
		case d.Stride >= span:
			dims[k] = d
			k++
			span += (d.Count - 1) * d.Stride
		default:
			r.bad = k
			r.off, r.len, r.n = off, l, k+copy(dims[k:], dims[i:m])
			return r
		}
	}
	r.off, r.len, r.n = off, l, k
	return r
}

// firstIn returns the lowest byte of s in [lo, hi). It descends from the
// outermost dimension choosing the first sub-block that ends above lo; if
// that one holds no byte below hi, the answer is the start of the next
// sub-block at the deepest level that has one, because nested sub-blocks
// are ordered and each starts with a byte of data. O(dimensions).
func (s *shape) firstIn(lo, hi int64) (int64, bool) {
	x, y := lo-s.off, hi-s.off
	x = max(x, 0)
	if x >= y {
		return 0, false
	}
	span := s.span()
	var base, next int64
	found := false
	for d := s.n - 1; d >= 0; d-- {
		st, c := s.d[d].Stride, s.d[d].Count
		span -= (c - 1) * st // now the span of one sub-block of this level
		var i int64
		if x-base >= span {
			i = floorDiv(x-base-span, st) + 1
		}
		if i >= c || base+i*st >= y {
			return s.off + next, found
		}
		if i+1 < c && base+(i+1)*st < y {
			next, found = base+(i+1)*st, true
		}
		base += i * st
	}
	if x < base+s.len {
		return s.off + max(x, base), true
	}
	return s.off + next, found
}

// firstCommon returns the lowest byte in both a and b. Disjoint bounds
// answer at once; a single block against a lattice is firstIn; equal
// strides are solved arithmetically (equalStrides); otherwise the cheaper
// side is walked sub-block by sub-block, each step one of the two O(1)
// checks, so the cost is at most the smaller number of blocks.
func firstCommon(a, b *shape) (int64, bool) {
	if a.off >= b.end() || b.off >= a.end() {
		return 0, false
	}
	if a.n == 0 {
		return b.firstIn(a.off, a.off+a.len)
	}
	if b.n == 0 {
		return a.firstIn(b.off, b.off+b.len)
	}
	if a.n == b.n && sameStrides(a, b, a.n) {
		return equalStrides(a, b)
	}
	// Walking a's sub-blocks at level pa leaves blocks with b's strides when
	// a's inner dimensions are b's (a buffer of several instances against
	// one instance, say); at level 0 they are single blocks.
	pa, pb := 0, 0
	if b.n < a.n && sameStrides(a, b, b.n) {
		pa = b.n
	}
	if a.n < b.n && sameStrides(a, b, a.n) {
		pb = a.n
	}
	if a.blocksFrom(pa) <= b.blocksFrom(pb) {
		return eachSub(a, pa, b)
	}
	return eachSub(b, pb, a)
}

func sameStrides(a, b *shape, n int) bool {
	for i := 0; i < n; i++ {
		if a.d[i].Stride != b.d[i].Stride {
			return false
		}
	}
	return true
}

// eachSub walks the sub-blocks of x at level p (x with its dimensions
// below p) in address order, from the first that ends above y's start,
// and returns the first byte one of them shares with y. Sub-blocks are
// disjoint and ordered, so the first hit is the lowest.
func eachSub(x *shape, p int, y *shape) (int64, bool) {
	lo, hi := y.off, y.end()
	var sub shape
	sub.len, sub.n = x.len, p
	copy(sub.d[:p], x.d[:p])
	var idx [maxDims]int64
	base, span := x.off, x.span()
	for d := x.n - 1; d >= p; d-- {
		st, c := x.d[d].Stride, x.d[d].Count
		span -= (c - 1) * st
		var i int64
		if lo-base >= span {
			i = floorDiv(lo-base-span, st) + 1
		}
		if i >= c {
			return 0, false
		}
		idx[d] = i
		base += i * st
	}
	for base < hi {
		sub.off = base
		if at, ok := firstCommon(&sub, y); ok {
			return at, true
		}
		d := p
		for ; d < x.n; d++ { // odometer, dimension p fastest
			idx[d]++
			base += x.d[d].Stride
			if idx[d] < x.d[d].Count {
				break
			}
			base -= idx[d] * x.d[d].Stride
			idx[d] = 0
		}
		if d == x.n {
			break
		}
	}
	return 0, false
}

// equalStrides intersects two lattices with the same strides (counts and
// block lengths may differ). Block i of a starts at a.off+I and block j of b
// at b.off+J; with k = i-j per dimension and K = I-J they intersect iff
// b.off-a.off-a.len < K < b.off-a.off+b.len, and then the lowest shared byte
// is I + max(a.off, b.off-K) with the smallest I, i_d = max(k_d, 0). The
// search picks k_d from the outermost dimension in; because the dimensions
// nest, the window of width a's span plus b's span at each level admits at
// most two values of k_d, so at most 2^dims candidates are scored whatever
// the counts: O(1) for a given shape.
func equalStrides(a, b *shape) (int64, bool) {
	e := eqSearch{a: a, b: b, delta: b.off - a.off}
	for d := 0; d < a.n; d++ {
		s := a.d[d].Stride
		e.lowIn[d+1] = e.lowIn[d] - (b.d[d].Count-1)*s
		e.highIn[d+1] = e.highIn[d] + (a.d[d].Count-1)*s
	}
	e.search(a.n-1, 0, 0)
	return e.best, e.found
}

type eqSearch struct {
	a, b          *shape
	delta         int64
	lowIn, highIn [maxDims + 1]int64 // range of the inner part of K below each level
	best          int64
	found         bool
}

func (e *eqSearch) search(d int, K, I int64) {
	if d < 0 {
		v := I + max(e.a.off, e.b.off-K)
		if !e.found || v < e.best {
			e.best, e.found = v, true
		}
		return
	}
	if e.found && I+e.a.off >= e.best {
		return // every candidate below is at least this
	}
	s := e.a.d[d].Stride
	lo := floorDiv(e.delta-e.a.len-K-e.highIn[d], s) + 1
	hi := ceilDiv(e.delta+e.b.len-K-e.lowIn[d], s) - 1
	lo, hi = max(lo, 1-e.b.d[d].Count), min(hi, e.a.d[d].Count-1)
	for k := lo; k <= hi; k++ {
		e.search(d-1, K+k*s, I+max(k, 0)*s)
	}
}

// eachBlock calls fn with the start of every contiguous block of s, in
// address order.
func (s *shape) eachBlock(fn func(start int64)) {
	if s.n == 0 {
		fn(s.off)
		return
	}
	var idx [maxDims]int64
	base := s.off
	c0, s0 := s.d[0].Count, s.d[0].Stride
	for {
		for i := int64(0); i < c0; i++ {
			fn(base + i*s0)
		}
		d := 1
		for ; d < s.n; d++ {
			idx[d]++
			base += s.d[d].Stride
			if idx[d] < s.d[d].Count {
				break
			}
			base -= idx[d] * s.d[d].Stride
			idx[d] = 0
		}
		if d >= s.n {
			return
		}
	}
}
