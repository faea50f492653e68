package datatype

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A path in Fortran form names an element the way a Fortran program
// indexes it: indices count from 1 and a level's indices form one
// parenthesized list, and a named level after an index follows "%",
// Fortran's component selector:
//
//	(2)halo(VECTOR)(1,2)%s_type(STRUCT)(3,6)(CHAR)
//
// is the C form's [1]halo(VECTOR)[0][1].s_type(STRUCT)[2][5](CHAR). A subarray's or darray's indices are those of the element
// in the whole array the type describes (MPI-4.1 §5.1.3: the subarray
// starts at starts(i), counted from 0, so the element is the array's
// element starts(i)+j+1 of an array declared with lower bounds 1), in
// Fortran's dimension order: argument order for MPI_ORDER_FORTRAN,
// reversed for MPI_ORDER_C, whose first dimension varies slowest. ParsePath
// reads this form too, and Type.Resolve takes it.

// Fortran prints the path in Fortran form, a grid level's array indices
// for an array declared with the default lower bounds, 1.
func (p Path) Fortran() string { return p.FortranBounds(nil) }

// FortranBounds prints the path in Fortran form, asking lower for the
// lower bounds of the array that a grid level describes, given its shape
// (in Fortran order); when lower is nil or answers nil, they are 1.
func (p Path) FortranBounds(lower func(shape []int64) []int64) string {
	var b strings.Builder
	if p.Rep >= 0 {
		fmt.Fprintf(&b, "(%d)", p.Rep+1)
	}
	for k := range p.Steps {
		s := p.writeHead(&b, k, '%')
		if idx := s.fortranIndex(lower); len(idx) > 0 {
			b.WriteByte('(')
			for i, v := range idx {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.FormatInt(v, 10))
			}
			b.WriteByte(')')
		}
	}
	if p.Basic.Valid() {
		b.WriteString("(" + p.Basic.String() + ")")
	}
	return b.String()
}

// fortranIndex is the step's indices as Fortran counts them.
func (s Step) fortranIndex(lower func(shape []int64) []int64) []int64 {
	if s.fortran {
		return s.Index
	}
	if s.array == nil {
		out := make([]int64, len(s.Index))
		for i, v := range s.Index {
			out[i] = v + 1
		}
		return out
	}
	out, shape := slices.Clone(s.array), slices.Clone(s.shape)
	if s.order == OrderC {
		slices.Reverse(out)
		slices.Reverse(shape)
	}
	var lb []int64
	if lower != nil {
		lb = lower(shape)
	}
	for i := range out {
		if len(lb) == len(out) {
			out[i] += lb[i]
		} else {
			out[i]++
		}
	}
	return out
}

// fortranGroup reads the list of a Fortran index group, the text between
// its parentheses: integers separated by commas.
func fortranGroup(list string) ([]int64, bool) {
	var idx []int64
	for _, f := range strings.Split(list, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, false
		}
		idx = append(idx, v)
	}
	return idx, true
}

// isFortranGroup says whether the text after a '(' opens an index group
// rather than a combiner or type name: a list of integers up to the ')'.
// A pair type's name begins with a digit too ((2INT)), and is a name.
func isFortranGroup(rest string) bool {
	j := strings.IndexByte(rest, ')')
	if j < 0 {
		t := strings.TrimLeft(rest, " ")
		return t != "" && (t[0] == '-' || '0' <= t[0] && t[0] <= '9') // unclosed: the error names the group
	}
	_, ok := fortranGroup(rest[:j])
	return ok
}

// fromFortran turns the Fortran indices of one level of t into the C
// form's: from 1 to from 0, and for a subarray or darray from the whole
// array's indices in Fortran order to the indices in the sub-block in
// argument order. ok is false when an index lies outside what t owns.
func fromFortran(t *Type, idx []int64) (out []int64, ok bool) {
	out = make([]int64, len(idx))
	for i, v := range idx {
		out[i] = v - 1
	}
	g, grid := t.kids.(*gridKids)
	if !grid {
		return out, true
	}
	if t.Order == OrderC {
		slices.Reverse(out)
	}
	for _, d := range g.dims {
		l, ok := d.local(out[d.argPos])
		if !ok {
			return nil, false
		}
		out[d.argPos] = l
	}
	return out, true
}

// local is the inverse of global: the local index of global index x, and
// false when the dimension does not own x.
func (d *gridDim) local(x int64) (int64, bool) {
	s := d.seq
	if s.n == 0 || x < s.first || s.period <= 0 && s.n > 1 {
		return 0, false
	}
	r := int64(0)
	if s.period > 0 {
		r = min((x-s.first)/s.period, s.n-1)
	}
	run := s.run(r)
	if x >= run.start+run.len {
		return 0, false
	}
	return run.local + x - run.start, true
}

// arrayIndex fills a grid level's step with the element's indices in the
// whole array, for the Fortran form.
func arrayIndex(t *Type, s *Step) {
	g, ok := t.kids.(*gridKids)
	if !ok || len(s.Index) != len(g.dims) {
		return
	}
	s.array = make([]int64, len(s.Index))
	for _, d := range g.dims {
		s.array[d.argPos] = d.global(s.Index[d.argPos])
	}
	s.order = t.Order
	s.shape = t.Sizes
	if t.Combiner == CombinerDarray {
		s.shape = t.Gsizes
	}
}
