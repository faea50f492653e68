package symbolize

import (
	"debug/dwarf"
	"fmt"
	"slices"

	"github.com/mpidbg/mpidbg/checks"
)

// LowerBounds answers, for a Fortran call at site, the lower bounds of the
// array a datatype describes by its shape alone (a subarray's sizes, a
// darray's gsizes, in Fortran order): the arrays visible at the call (the
// procedure's and its hosts' variables and dummy arguments, module
// variables of the unit) whose declared extents are shape, when all of
// them agree. It returns nil when none does, when they disagree, or when
// the unit has no DWARF; an array whose bounds are known only at run time
// (allocatable, assumed-shape, automatic) is not a candidate. DWARF 5
// section 5.13: a subrange without DW_AT_lower_bound has the language's
// default, 1 for Fortran.
func (r *Resolver) LowerBounds(site checks.Site, shape []int64) []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := boundsKey{site, fmt.Sprint(shape)}
	if lb, ok := r.bounds[key]; ok {
		return lb
	}
	m, ok := r.modules[site.Module]
	if !ok {
		m = load(site.Module, r.DebugDirs)
		r.modules[site.Module] = m
	}
	var lb []int64
	if m.err == nil && m.d != nil {
		lb = m.lowerBounds(site.Offset, shape)
	}
	if r.bounds == nil {
		r.bounds = map[boundsKey][]int64{}
	}
	r.bounds[key] = lb
	return lb
}

type boundsKey struct {
	site  checks.Site
	shape string
}

func (m *module) lowerBounds(offset uint64, shape []int64) (lb []int64) {
	defer func() {
		if recover() != nil {
			lb = nil // malformed DWARF: no answer
		}
	}()
	pc := offset
	if pc > 0 {
		pc--
	}
	cu := m.unit(pc)
	if cu == nil || !isFortran(cu) {
		return nil
	}
	rd := m.d.Reader()
	rd.Seek(cu.Offset)
	if e, err := rd.Next(); err != nil || e == nil || !e.Children {
		return nil
	}
	v := &visible{modules: map[dwarf.Offset][]array{}}
	arrays, _ := m.visibleArrays(rd, pc, v, true)
	for _, mod := range v.imported {
		arrays = append(arrays, v.modules[mod]...)
	}
	for _, a := range arrays {
		if a.rank != len(shape) {
			continue
		}
		if a.dims == nil {
			return nil // bounds known at run time only: this may be the buffer
		}
		if !slices.EqualFunc(a.dims, shape, func(d dim, n int64) bool { return d.hi-d.lo+1 == n }) {
			continue
		}
		cand := make([]int64, len(a.dims))
		for i, d := range a.dims {
			cand[i] = d.lo
		}
		if lb != nil && !slices.Equal(lb, cand) {
			return nil
		}
		lb = cand
	}
	return lb
}

type dim struct{ lo, hi int64 }

// array is a variable of array type: its rank, and its dimensions when
// all its bounds are constants (nil when some are known at run time).
type array struct {
	rank int
	dims []dim
}

// visible gathers, over a unit, the arrays of its modules by the
// module's entry, and the modules the scopes holding the call import
// (use): only those modules' variables are visible there.
type visible struct {
	modules  map[dwarf.Offset][]array
	imported []dwarf.Offset
}

// visibleArrays reads the children of the entry rd has just returned and
// gives the arrays declared among them that a call at pc sees, and
// whether one of them is a scope holding pc. A module's arrays go to
// v.modules instead; the imports of a scope that holds pc (here: the
// entry read itself does) go to v.imported.
func (m *module) visibleArrays(rd *dwarf.Reader, pc uint64, v *visible, here bool) (arrays []array, hit bool) {
	var imports []dwarf.Offset
	for {
		e, err := rd.Next()
		if err != nil || e == nil || e.Tag == 0 {
			break
		}
		switch e.Tag {
		case dwarf.TagVariable, dwarf.TagFormalParameter:
			if a, ok := m.arrayOf(e); ok {
				arrays = append(arrays, a)
			}
			if e.Children {
				rd.SkipChildren()
			}
		case dwarf.TagImportedModule:
			if off, ok := e.Val(dwarf.AttrImport).(dwarf.Offset); ok {
				imports = append(imports, off)
			}
			if e.Children {
				rd.SkipChildren()
			}
		case dwarf.TagModule:
			if e.Children {
				inner, _ := m.visibleArrays(rd, pc, &visible{modules: v.modules}, false)
				v.modules[e.Offset] = append(v.modules[e.Offset], inner...)
			}
		case dwarf.TagSubprogram, dwarf.TagLexDwarfBlock, dwarf.TagInlinedSubroutine:
			if !e.Children {
				continue
			}
			rs, err := m.d.Ranges(e)
			holds := err == nil && contains(rs, pc)
			inner, innerHit := m.visibleArrays(rd, pc, v, holds)
			if holds || innerHit {
				arrays = append(arrays, inner...)
				hit = true
			}
		default:
			if e.Children {
				rd.SkipChildren()
			}
		}
	}
	if hit || here {
		v.imported = append(v.imported, imports...)
	}
	return arrays, hit
}

// arrayOf is the array a variable holds, and false when it is not an
// array. An inlined variable names its type through its abstract origin.
func (m *module) arrayOf(v *dwarf.Entry) (array, bool) {
	off, ok := v.Val(dwarf.AttrType).(dwarf.Offset)
	if !ok {
		if origin, isRef := v.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); isRef {
			rd := m.d.Reader()
			rd.Seek(origin)
			if o, err := rd.Next(); err == nil && o != nil {
				off, ok = o.Val(dwarf.AttrType).(dwarf.Offset)
			}
		}
	}
	rd := m.d.Reader()
	for hops := 0; ok && hops < 8; hops++ {
		rd.Seek(off)
		t, err := rd.Next()
		if err != nil || t == nil {
			return array{}, false
		}
		switch t.Tag {
		case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagPointerType:
			// a pointer: gfortran describes an allocatable or pointer
			// array's data by one, with its bounds in the descriptor
			off, ok = t.Val(dwarf.AttrType).(dwarf.Offset)
			continue
		case dwarf.TagArrayType:
			return m.arrayDims(rd, t), true
		}
		return array{}, false
	}
	return array{}, false
}

// arrayDims reads an array type's subranges, which rd is about to return.
func (m *module) arrayDims(rd *dwarf.Reader, t *dwarf.Entry) array {
	var a array
	constant := t.Children && t.Val(dwarf.AttrDataLocation) == nil
	for t.Children {
		s, err := rd.Next()
		if err != nil || s == nil || s.Tag == 0 {
			break
		}
		if s.Tag != dwarf.TagSubrangeType {
			continue
		}
		a.rank++
		d := dim{lo: 1}
		if lo := s.Val(dwarf.AttrLowerBound); lo != nil {
			v, isInt := lo.(int64)
			constant = constant && isInt
			d.lo = v
		}
		switch hi, n := s.Val(dwarf.AttrUpperBound), s.Val(dwarf.AttrCount); {
		case hi != nil:
			v, isInt := hi.(int64)
			constant = constant && isInt
			d.hi = v
		case n != nil:
			v, isInt := n.(int64)
			constant = constant && isInt
			d.hi = d.lo + v - 1
		default:
			constant = false
		}
		a.dims = append(a.dims, d)
	}
	if !constant {
		a.dims = nil
	}
	return a
}
