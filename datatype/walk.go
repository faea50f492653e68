package datatype

import (
	"fmt"
	"iter"
)

// TypeMap yields the type map of count instances of t (MPI-4.1 §5.1):
// each basic element's byte displacement from the buffer start and its
// type, in type-map order. Pair types yield their two fields; MPI_LB and
// MPI_UB yield nothing. Nothing is materialised: the walk follows the
// constructor tree.
func (t *Type) TypeMap(count int64) iter.Seq2[int64, Basic] {
	return func(yield func(int64, Basic) bool) {
		ext := t.Extent()
		for r := int64(0); r < count; r++ {
			if !t.walk(r*ext, yield) {
				return
			}
		}
	}
}

func (t *Type) walk(base int64, yield func(int64, Basic) bool) bool {
	if t.leaf() {
		if t.Basic.IsMarker() {
			return true
		}
		return yield(base, t.Basic)
	}
	k := t.kids
	for i, n := int64(0), k.len(); i < n; i++ {
		disp, cnt, c := k.at(i)
		if c.leaf() && !c.Basic.IsMarker() && c.Extent() == c.size {
			// a run of one basic type: no recursion per element
			for j := int64(0); j < cnt; j++ {
				if !yield(base+disp+j*c.size, c.Basic) {
					return false
				}
			}
			continue
		}
		e := c.Extent()
		for j := int64(0); j < cnt; j++ {
			if !c.walk(base+disp+j*e, yield) {
				return false
			}
		}
	}
	return true
}

// Element is one basic element of a buffer of count instances of a type.
type Element struct {
	Index  int64 // position in type-map order over all instances
	Packed int64 // byte position of its first byte in the packed stream (MPI_Pack)
	Offset int64 // byte displacement from the buffer start
	Basic  Basic
	Path   Path
}

// ErrOutOfRange is wrapped by the errors of the Element lookups.
var ErrOutOfRange = fmt.Errorf("position out of range")

// ElementAt returns element index (in type-map order) of count instances.
func (t *Type) ElementAt(count, index int64) (Element, error) {
	return t.locate(count, index, byElements)
}

// ElementAtPacked returns the element that holds byte pos of the packed
// representation of count instances (the order of MPI_Pack).
func (t *Type) ElementAtPacked(count, pos int64) (Element, error) {
	return t.locate(count, pos, byBytes)
}

func (t *Type) locate(count, pos int64, m measure) (Element, error) {
	per := m.of(t)
	if pos < 0 || pos >= per*count {
		unit := "element"
		if m == byBytes {
			unit = "packed byte"
		}
		return Element{}, fmt.Errorf("%s %d of %d x %s (%d per instance): %w", unit, pos, count, t.Label(), per, ErrOutOfRange)
	}
	rep := pos / per
	pos -= rep * per
	el := Element{Offset: rep * t.Extent(), Index: rep * t.nelem, Packed: rep * t.size}
	el.Path.Rep = -1
	if count > 1 {
		el.Path.Rep = rep
	}
	cur := t
	for !cur.leaf() {
		k := cur.kids
		i, start := k.find(pos, m)
		disp, _, c := k.at(i)
		j := (pos - start) / m.of(c)
		el.Path.Steps = append(el.Path.Steps, stepOf(cur, k.indices(nil, i, j)))
		el.Offset += disp + j*c.Extent()
		el.Index += k.before(i, byElements) + j*c.nelem
		el.Packed += k.before(i, byBytes) + j*c.size
		pos -= start + j*m.of(c)
		cur = c
	}
	el.Basic = cur.Basic
	el.Path.Basic = cur.Basic
	return el, nil
}

func stepOf(t *Type, idx []int64) Step {
	s := Step{Name: t.Name, Combiner: t.Combiner, Index: idx, known: true}
	if t.Combiner == CombinerNamed {
		s.Name, s.Pair = "", t.Basic
	}
	arrayIndex(t, &s)
	return s
}

// ElementAtOffset returns the first element, in type-map order, whose bytes
// include byte offset off of a buffer of count instances, and false when
// off falls in a gap.
func (t *Type) ElementAtOffset(count, off int64) (Element, bool) {
	ext := t.Extent()
	first, last := candidates(off, 0, count, ext, t.trueLB, t.trueUB)
	for r := first; r <= last; r++ {
		el := Element{Offset: r * ext, Index: r * t.nelem, Packed: r * t.size}
		el.Path.Rep = -1
		if count > 1 {
			el.Path.Rep = r
		}
		if t.findOffset(off-r*ext, &el) {
			return el, true
		}
	}
	return Element{}, false
}

// findOffset descends into t looking for the element covering rel, a byte
// offset relative to this instance, filling el on the way.
func (t *Type) findOffset(rel int64, el *Element) bool {
	if t.leaf() {
		if t.Basic.IsMarker() || rel < 0 || rel >= t.size {
			return false
		}
		el.Basic, el.Path.Basic = t.Basic, t.Basic
		el.Packed += rel
		return true
	}
	k := t.kids
	first, last := int64(0), k.len()-1
	if s, ok := k.(*stridedKids); ok {
		// blocks are evenly spaced: only a few can hold rel
		lo, hi := blockTrueBounds(s.blockLen, s.old)
		first, last = candidates(rel, 0, s.count, s.stride, lo, hi)
	}
	for i := first; i <= last; i++ {
		disp, cnt, c := k.at(i)
		jf, jl := candidates(rel, disp, cnt, c.Extent(), c.trueLB, c.trueUB)
		for j := jf; j <= jl; j++ {
			saved := *el
			el.Path.Steps = append(el.Path.Steps, stepOf(t, k.indices(nil, i, j)))
			el.Offset += disp + j*c.Extent()
			el.Index += k.before(i, byElements) + j*c.nelem
			el.Packed += k.before(i, byBytes) + j*c.size
			if c.findOffset(rel-disp-j*c.Extent(), el) {
				return true
			}
			*el = saved
		}
	}
	return false
}

// blockTrueBounds are the data bounds of n consecutive instances of c.
func blockTrueBounds(n int64, c *Type) (lo, hi int64) {
	e := c.Extent()
	lo, hi = c.trueLB, c.trueUB
	if n > 0 && e >= 0 {
		hi += (n - 1) * e
	} else if n > 0 {
		lo += (n - 1) * e
	}
	return lo, hi
}

// candidates returns the range first..last of j in [0,n) for which
// rel - disp - j*step lies in [lo, hi): the instances that may hold rel.
// The range is empty (first > last) when none can.
func candidates(rel, disp, n, step, lo, hi int64) (first, last int64) {
	x := rel - disp
	if n <= 0 || hi <= lo {
		return 0, -1
	}
	switch {
	case step == 0:
		if x < lo || x >= hi {
			return 0, -1
		}
		first, last = 0, n-1
	case step > 0: // x - hi < j*step <= x - lo
		first, last = floorDiv(x-hi, step)+1, floorDiv(x-lo, step)
	default:
		s := -step // x - hi < -j*s <= x - lo  =>  lo - x <= j*s < hi - x
		first, last = ceilDiv(lo-x, s), ceilDiv(hi-x, s)-1
	}
	return max(first, 0), min(last, n-1)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }
