package datatype

import "sort"

// kids describes one instance of a derived type as a sequence of blocks in
// type-map order: block i is count consecutive instances of a child type,
// the first at disp bytes, the others spaced by the child's extent. Nothing
// is materialised per element, so a vector of a million blocks costs as
// little as a vector of one.
type kids interface {
	len() int64
	at(i int64) (disp, count int64, child *Type)
	// arity is how many path indices this level takes ([block][elem] is 2).
	arity() int
	// indices appends the path indices of element k of block i.
	indices(dst []int64, i, k int64) []int64
	// block maps arity() path indices to (block, element within block).
	block(idx []int64) (i, k int64, ok bool)
	// before is the measure of all blocks before block i.
	before(i int64, m measure) int64
	// find returns the block holding position pos of measure m (elements or
	// packed bytes, counted from the start of the instance) and the position
	// at which that block starts. pos must be below the instance's total.
	find(pos int64, m measure) (i, start int64)
}

// measure counts either basic elements or packed bytes of a type.
type measure uint8

const (
	byElements measure = iota
	byBytes
)

func (m measure) of(t *Type) int64 {
	if m == byBytes {
		return t.size
	}
	return t.nelem
}

// stridedKids: contiguous (arity 1), vector and hvector (arity 2), resized
// and dup (arity 0, one block of one child).
type stridedKids struct {
	count, blockLen, stride int64 // stride in bytes
	old                     *Type
	ar                      int
}

func (s *stridedKids) len() int64                       { return s.count }
func (s *stridedKids) at(i int64) (int64, int64, *Type) { return i * s.stride, s.blockLen, s.old }
func (s *stridedKids) arity() int                       { return s.ar }

func (s *stridedKids) indices(dst []int64, i, k int64) []int64 {
	switch s.ar {
	case 1:
		return append(dst, k)
	case 2:
		return append(dst, i, k)
	}
	return dst
}

func (s *stridedKids) block(idx []int64) (int64, int64, bool) {
	switch s.ar {
	case 0:
		return 0, 0, true
	case 1:
		return 0, idx[0], idx[0] >= 0 && idx[0] < s.blockLen
	}
	return idx[0], idx[1], idx[0] >= 0 && idx[0] < s.count && idx[1] >= 0 && idx[1] < s.blockLen
}

func (s *stridedKids) before(i int64, m measure) int64 { return i * s.blockLen * m.of(s.old) }

func (s *stridedKids) find(pos int64, m measure) (int64, int64) {
	per := s.blockLen * m.of(s.old)
	if per == 0 {
		return 0, 0
	}
	i := pos / per
	return i, i * per
}

// listKids: indexed, hindexed, indexed_block, hindexed_block, struct
// (arity 2) and the pair types (arity 1). Prefix sums of elements and bytes
// make find a binary search.
type listKids struct {
	disps, counts []int64 // disps in bytes
	types         []*Type // one per block, or a single shared type
	pair          bool
	elemsBefore   []int64 // len+1 prefix sums
	bytesBefore   []int64
}

func newListKids(disps, counts []int64, types []*Type) *listKids {
	l := &listKids{disps: disps, counts: counts, types: types}
	l.elemsBefore = make([]int64, len(counts)+1)
	l.bytesBefore = make([]int64, len(counts)+1)
	for i, n := range counts {
		c := l.child(int64(i))
		l.elemsBefore[i+1] = l.elemsBefore[i] + n*c.nelem
		l.bytesBefore[i+1] = l.bytesBefore[i] + n*c.size
	}
	return l
}

func (l *listKids) child(i int64) *Type {
	if len(l.types) == 1 {
		return l.types[0]
	}
	return l.types[i]
}

func (l *listKids) len() int64                       { return int64(len(l.counts)) }
func (l *listKids) at(i int64) (int64, int64, *Type) { return l.disps[i], l.counts[i], l.child(i) }

func (l *listKids) arity() int {
	if l.pair {
		return 1
	}
	return 2
}

func (l *listKids) indices(dst []int64, i, k int64) []int64 {
	if l.pair {
		return append(dst, i)
	}
	return append(dst, i, k)
}

func (l *listKids) block(idx []int64) (int64, int64, bool) {
	i := idx[0]
	if i < 0 || i >= l.len() {
		return 0, 0, false
	}
	if l.pair {
		return i, 0, true
	}
	return i, idx[1], idx[1] >= 0 && idx[1] < l.counts[i]
}

func (l *listKids) before(i int64, m measure) int64 {
	if m == byBytes {
		return l.bytesBefore[i]
	}
	return l.elemsBefore[i]
}

func (l *listKids) find(pos int64, m measure) (int64, int64) {
	before := l.elemsBefore
	if m == byBytes {
		before = l.bytesBefore
	}
	// the last block whose start is <= pos and that is not empty
	i := sort.Search(len(l.counts), func(i int) bool { return before[i+1] > pos })
	if i == len(l.counts) {
		i--
	}
	return int64(i), before[i]
}

// gridKids: subarray and darray. The array's dimensions are held slowest
// first; each lists the global indices this type owns as a sequence of
// runs. One block is one run of the fastest dimension.
type gridKids struct {
	dims  []gridDim
	old   *Type
	outer int64 // owned index combinations of all dimensions but the fastest
}

type gridDim struct {
	stride int64  // bytes between consecutive global indices
	seq    runSeq // owned global indices, increasing
	total  int64  // number of owned indices
	argPos int    // position of this dimension in the constructor's arguments
}

// runSeq is the owned indices of one dimension in closed form, so that a
// cyclic distribution of a billion elements costs no more than a block
// one: n runs, run r starting at global index first + r*period, each blen
// long but the last, which is lastLen long (a cyclic block cut by the end
// of the array). Subarrays and block distributions are one run.
type runSeq struct{ first, period, blen, lastLen, n int64 }

type idxRun struct{ start, len, local int64 } // global start, length, local index of start

func (s runSeq) run(r int64) idxRun {
	l := s.blen
	if r == s.n-1 {
		l = s.lastLen
	}
	return idxRun{start: s.first + r*s.period, len: l, local: r * s.blen}
}

func (s runSeq) total() int64 {
	if s.n == 0 {
		return 0
	}
	return (s.n-1)*s.blen + s.lastLen
}

// find returns the run holding local index l.
func (s runSeq) find(l int64) int64 { return min(l/s.blen, s.n-1) }

func (g *gridKids) fast() *gridDim { return &g.dims[len(g.dims)-1] }

func (g *gridKids) len() int64 { return g.outer * g.fast().seq.n }

// global returns the global index of local index l in dimension d.
func (d *gridDim) global(l int64) int64 {
	r := d.seq.run(d.seq.find(l))
	return r.start + l - r.local
}

func (g *gridKids) at(i int64) (int64, int64, *Type) {
	f := g.fast()
	nr := f.seq.n
	o, run := i/nr, f.seq.run(i%nr)
	disp := run.start * f.stride
	for d := len(g.dims) - 2; d >= 0; d-- {
		dim := &g.dims[d]
		disp += dim.global(o%dim.total) * dim.stride
		o /= dim.total
	}
	return disp, run.len, g.old
}

func (g *gridKids) arity() int { return len(g.dims) }

func (g *gridKids) indices(dst []int64, i, k int64) []int64 {
	n := len(dst)
	for range g.dims {
		dst = append(dst, 0)
	}
	f := g.fast()
	nr := f.seq.n
	o := i / nr
	dst[n+f.argPos] = f.seq.run(i%nr).local + k
	for d := len(g.dims) - 2; d >= 0; d-- {
		dim := &g.dims[d]
		dst[n+dim.argPos] = o % dim.total
		o /= dim.total
	}
	return dst
}

func (g *gridKids) block(idx []int64) (int64, int64, bool) {
	var o int64
	for d := 0; d < len(g.dims)-1; d++ {
		dim := &g.dims[d]
		l := idx[dim.argPos]
		if l < 0 || l >= dim.total {
			return 0, 0, false
		}
		o = o*dim.total + l
	}
	f := g.fast()
	l := idx[f.argPos]
	if l < 0 || l >= f.total {
		return 0, 0, false
	}
	r := f.seq.find(l)
	return o*f.seq.n + r, l - f.seq.run(r).local, true
}

func (g *gridKids) before(i int64, m measure) int64 {
	f := g.fast()
	nr := f.seq.n
	return ((i/nr)*f.total + f.seq.run(i%nr).local) * m.of(g.old)
}

func (g *gridKids) find(pos int64, m measure) (int64, int64) {
	f := g.fast()
	per := m.of(g.old)
	group := f.total * per
	if group == 0 {
		return 0, 0
	}
	o := pos / group
	rem := (pos - o*group) / per
	r := f.seq.find(rem)
	return o*f.seq.n + r, o*group + f.seq.run(r).local*per
}
