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
	arrays, _ := m.visibleArrays(rd, pc)
	for _, a := range arrays {
		if len(a) != len(shape) || !slices.EqualFunc(a, shape, func(d dim, n int64) bool { return d.hi-d.lo+1 == n }) {
			continue
		}
		cand := make([]int64, len(a))
		for i, d := range a {
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

// visibleArrays reads the children of the entry rd has just returned and
// gives the arrays of constant bounds declared among them that a call at
// pc sees, and whether one of them is a scope holding pc.
func (m *module) visibleArrays(rd *dwarf.Reader, pc uint64) (arrays [][]dim, hit bool) {
	for {
		e, err := rd.Next()
		if err != nil || e == nil || e.Tag == 0 {
			return arrays, hit
		}
		switch e.Tag {
		case dwarf.TagVariable, dwarf.TagFormalParameter:
			if a := m.constantArray(e); a != nil {
				arrays = append(arrays, a)
			}
			if e.Children {
				rd.SkipChildren()
			}
		case dwarf.TagSubprogram, dwarf.TagLexDwarfBlock, dwarf.TagModule:
			if !e.Children {
				continue
			}
			inner, innerHit := m.visibleArrays(rd, pc)
			here := e.Tag == dwarf.TagModule
			if !here {
				rs, err := m.d.Ranges(e)
				here = err == nil && contains(rs, pc)
				hit = hit || here || innerHit
			}
			if here || innerHit {
				arrays = append(arrays, inner...)
			}
		default:
			if e.Children {
				rd.SkipChildren()
			}
		}
	}
}

// constantArray is the dimensions of a variable of array type whose
// bounds are all constants, else nil.
func (m *module) constantArray(v *dwarf.Entry) []dim {
	off, ok := v.Val(dwarf.AttrType).(dwarf.Offset)
	rd := m.d.Reader()
	for hops := 0; ok && hops < 8; hops++ {
		rd.Seek(off)
		t, err := rd.Next()
		if err != nil || t == nil {
			return nil
		}
		switch t.Tag {
		case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType:
			off, ok = t.Val(dwarf.AttrType).(dwarf.Offset)
			continue
		case dwarf.TagArrayType:
			if !t.Children || t.Val(dwarf.AttrDataLocation) != nil {
				return nil
			}
			var dims []dim
			for {
				s, err := rd.Next()
				if err != nil || s == nil || s.Tag == 0 {
					return dims
				}
				if s.Tag != dwarf.TagSubrangeType {
					return nil
				}
				d := dim{lo: 1}
				if v, present := s.Val(dwarf.AttrLowerBound).(int64); present {
					d.lo = v
				} else if s.Val(dwarf.AttrLowerBound) != nil {
					return nil
				}
				switch hi, n := s.Val(dwarf.AttrUpperBound), s.Val(dwarf.AttrCount); {
				case hi != nil:
					v, isInt := hi.(int64)
					if !isInt {
						return nil
					}
					d.hi = v
				case n != nil:
					v, isInt := n.(int64)
					if !isInt {
						return nil
					}
					d.hi = d.lo + v - 1
				default:
					return nil
				}
				dims = append(dims, d)
			}
		}
		return nil
	}
	return nil
}
