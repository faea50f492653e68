package datatype

import (
	"fmt"
	"math"
)

// Constructors for every MPI-4.1 type constructor (§5.1.2-§5.1.7). Each
// checks its arguments against the standard's rules and computes size,
// bounds and true bounds the way MPICH does; where MPICH and the letter of
// the standard part ways, the comment on the rule says which one is kept.

func checkOld(fn string, old *Type) error {
	if old == nil {
		return argErr(fn, "oldtype", "MPI_DATATYPE_NULL", "is not a valid datatype")
	}
	if old.Combiner == CombinerNamed && old.Basic.IsMarker() {
		return argErr(fn, "oldtype", "MPI_"+old.Basic.String(), "is only allowed in a struct")
	}
	return nil
}

func checkNonNeg(fn, arg string, v int64) error {
	if v < 0 {
		return argErr(fn, arg, v, "must be non-negative")
	}
	return nil
}

func indexedArg(name string, i int) string { return name + "[" + itoa(int64(i)) + "]" }

// maxMagnitude bounds every byte quantity of a type (sizes, bounds,
// displacements): well inside int64, so no sum or product of the model
// can wrap, and far beyond any real address space.
const maxMagnitude = 1 << 62

// checkMagnitude is called before a constructor computes anything, with
// float64 estimates of the largest quantities the type will hold.
func checkMagnitude(fn string, vals ...float64) error {
	for _, v := range vals {
		if math.Abs(v) >= maxMagnitude {
			return argErr(fn, "arguments", fmt.Sprintf("%.3g", v), "make a type of more than 2^62 bytes or elements")
		}
	}
	return nil
}

func abs64(v int64) float64 { return math.Abs(float64(v)) }

// blockMagnitude estimates the bytes and elements of blocks of olds.
func blockMagnitude(lens, disps []int64, types []*Type, scale int64) []float64 {
	var size, elems, span float64
	for i, n := range lens {
		c := types[0]
		if len(types) > 1 {
			c = types[i]
		}
		size += float64(n) * float64(c.size)
		elems += float64(n) * float64(c.nelem)
		span = math.Max(span, abs64(disps[i])*float64(scale)+float64(n)*abs64(c.Extent())+abs64(c.lb)+abs64(c.ub))
	}
	return []float64{size, elems, span}
}

// Contiguous is MPI_Type_contiguous: count copies of old, spaced by its extent.
func Contiguous(count int64, old *Type) (*Type, error) {
	const fn = "contiguous"
	if err := checkNonNeg(fn, "count", count); err != nil {
		return nil, err
	}
	if err := checkOld(fn, old); err != nil {
		return nil, err
	}
	if err := checkMagnitude(fn, float64(count)*float64(old.size), float64(count)*float64(old.nelem), float64(count)*abs64(old.Extent())); err != nil {
		return nil, err
	}
	t := &Type{Combiner: CombinerContiguous, Count: count, Old: old}
	t.kids = &stridedKids{count: 1, blockLen: count, old: old, ar: 1}
	t.setStrided(count, 1, old.Extent(), old)
	return t, nil
}

// Vector is MPI_Type_vector: count blocks of blockLen copies of old, block
// starts stride extents of old apart.
func Vector(count, blockLen, stride int64, old *Type) (*Type, error) {
	t, err := vector("vector", count, blockLen, old)
	if err == nil {
		err = checkMagnitude("vector", float64(stride)*abs64(old.Extent())*float64(count))
	}
	if err != nil {
		return nil, err
	}
	t.Combiner, t.Stride = CombinerVector, stride
	t.finishVector(stride * old.Extent())
	return t, nil
}

// Hvector is MPI_Type_create_hvector: like Vector with the stride in bytes.
func Hvector(count, blockLen, strideBytes int64, old *Type) (*Type, error) {
	t, err := vector("hvector", count, blockLen, old)
	if err == nil {
		err = checkMagnitude("hvector", float64(strideBytes)*float64(count))
	}
	if err != nil {
		return nil, err
	}
	t.Combiner, t.Stride = CombinerHvector, strideBytes
	t.finishVector(strideBytes)
	return t, nil
}

func vector(fn string, count, blockLen int64, old *Type) (*Type, error) {
	if err := checkNonNeg(fn, "count", count); err != nil {
		return nil, err
	}
	if err := checkNonNeg(fn, "blocklength", blockLen); err != nil {
		return nil, err
	}
	if err := checkOld(fn, old); err != nil {
		return nil, err
	}
	n := float64(count) * float64(blockLen)
	if err := checkMagnitude(fn, n*float64(old.size), n*float64(old.nelem), n*abs64(old.Extent())); err != nil {
		return nil, err
	}
	return &Type{Count: count, BlockLen: blockLen, Old: old}, nil
}

func (t *Type) finishVector(strideBytes int64) {
	t.kids = &stridedKids{count: t.Count, blockLen: t.BlockLen, stride: strideBytes, old: t.Old, ar: 2}
	t.setStrided(t.Count, t.BlockLen, strideBytes, t.Old)
}

// setStrided computes size and bounds of count blocks of blockLen olds with
// block starts strideBytes apart. The bounds follow MPICH's rule
// (MPII_DATATYPE_VEC_LB_UB): they are derived from old's lb and ub, so an
// inner struct's alignment padding carries over, and a zero blockLen still
// spans the strides. A zero count or an old type without data (size 0)
// makes an empty type (see setEmpty).
func (t *Type) setStrided(count, blockLen, strideBytes int64, old *Type) {
	t.size = count * blockLen * old.size
	t.nelem = count * blockLen * old.nelem
	t.align = old.align
	if count == 0 || old.size == 0 {
		t.setEmpty()
		return
	}
	ext := old.Extent()
	lb, ub := old.lb, old.ub
	switch {
	case strideBytes >= 0 && ext >= 0:
		ub += ext*(blockLen-1) + strideBytes*(count-1)
	case strideBytes < 0 && ext >= 0:
		lb += strideBytes * (count - 1)
		ub += ext * (blockLen - 1)
	case strideBytes >= 0 && ext < 0:
		lb += ext * (blockLen - 1)
		ub += strideBytes * (count - 1)
	default:
		lb += ext*(blockLen-1) + strideBytes*(count-1)
	}
	t.lb, t.ub = lb, ub
	t.trueLB, t.trueUB = lb+old.trueLB-old.lb, ub+old.trueUB-old.ub
}

// Indexed is MPI_Type_indexed: block i is blockLens[i] copies of old at
// disps[i] extents of old. Blocks of length 0 add nothing to the bounds; no
// block of non-zero length, or an old type without data, makes an empty
// type (see setEmpty). The same holds for Hindexed.
func Indexed(blockLens, disps []int64, old *Type) (*Type, error) {
	return indexed("indexed", CombinerIndexed, blockLens, disps, old, true)
}

// Hindexed is MPI_Type_create_hindexed: like Indexed with disps in bytes.
func Hindexed(blockLens, dispsBytes []int64, old *Type) (*Type, error) {
	return indexed("hindexed", CombinerHindexed, blockLens, dispsBytes, old, false)
}

// IndexedBlock is MPI_Type_create_indexed_block: like Indexed with one
// block length for every block. As in MPICH, the blocks count for the
// bounds even when that length is 0: indexed_block(0,[1,2],INT) has lb 4
// and extent 4. The same holds for HindexedBlock.
func IndexedBlock(blockLen int64, disps []int64, old *Type) (*Type, error) {
	return indexedBlock("indexed_block", CombinerIndexedBlock, blockLen, disps, old, true)
}

// HindexedBlock is MPI_Type_create_hindexed_block: like IndexedBlock with
// disps in bytes.
func HindexedBlock(blockLen int64, dispsBytes []int64, old *Type) (*Type, error) {
	return indexedBlock("hindexed_block", CombinerHindexedBlock, blockLen, dispsBytes, old, false)
}

func indexedBlock(fn string, c Combiner, blockLen int64, disps []int64, old *Type, scaled bool) (*Type, error) {
	if err := checkNonNeg(fn, "blocklength", blockLen); err != nil {
		return nil, err
	}
	lens := make([]int64, len(disps))
	for i := range lens {
		lens[i] = blockLen
	}
	t, err := indexed(fn, c, lens, disps, old, scaled)
	if err != nil {
		return nil, err
	}
	t.BlockLens, t.BlockLen = nil, blockLen
	return t, nil
}

func indexed(fn string, c Combiner, blockLens, disps []int64, old *Type, scaled bool) (*Type, error) {
	if len(blockLens) != len(disps) {
		return nil, argErr(fn, "displacements", len(disps), "must have as many entries as blocklengths ("+itoa(int64(len(blockLens)))+")")
	}
	for i, b := range blockLens {
		if err := checkNonNeg(fn, indexedArg("blocklengths", i), b); err != nil {
			return nil, err
		}
	}
	if err := checkOld(fn, old); err != nil {
		return nil, err
	}
	scale := int64(1)
	if scaled {
		scale = max(old.Extent(), -old.Extent(), 1)
	}
	if err := checkMagnitude(fn, blockMagnitude(blockLens, disps, []*Type{old}, scale)...); err != nil {
		return nil, err
	}
	t := &Type{Combiner: c, Count: int64(len(blockLens)), BlockLens: clone(blockLens), Disps: clone(disps), Old: old}
	bytes := t.Disps
	if scaled {
		bytes = make([]int64, len(disps))
		for i, d := range disps {
			bytes[i] = d * old.Extent()
		}
	}
	t.kids = newListKids(bytes, t.BlockLens, []*Type{old})
	// indexed_block and hindexed_block have one block length for all
	// blocks: MPICH applies its block rule (MPII_DATATYPE_BLOCK_LB_UB) to
	// every displacement even when that length is 0
	zeroBlocks := c == CombinerIndexedBlock || c == CombinerHindexedBlock
	if any := t.setBlocks(bytes, t.BlockLens, []*Type{old}, zeroBlocks); !any || old.size == 0 {
		t.setEmpty()
	}
	return t, nil
}

// setEmpty makes t an empty type as MPICH's MPII_Type_zerolen does: no
// data, every bound 0, alignment 1 (it adds no padding to a struct).
func (t *Type) setEmpty() {
	t.size, t.nelem, t.align = 0, 0, align1
	t.lb, t.ub, t.trueLB, t.trueUB = 0, 0, 0, 0
}

// setBlocks computes size and bounds of a list of blocks. Blocks of length
// zero add nothing (MPICH skips them) unless zeroBlocks is set; blocks of
// types without data count. It reports whether any block counted.
func (t *Type) setBlocks(disps, lens []int64, types []*Type, zeroBlocks bool) (any bool) {
	t.align = align1
	for i, n := range lens {
		c := types[0]
		if len(types) > 1 {
			c = types[i]
		}
		if c.Combiner == CombinerNamed && c.Basic.IsMarker() {
			continue
		}
		t.size += n * c.size
		t.nelem += n * c.nelem
		if n == 0 && !zeroBlocks {
			continue
		}
		ext := c.Extent()
		lb, ub := disps[i]+c.lb, disps[i]+c.ub
		if ext >= 0 {
			ub += (n - 1) * ext
		} else {
			lb += (n - 1) * ext
		}
		tlb, tub := lb+c.trueLB-c.lb, ub+c.trueUB-c.ub
		if !any {
			t.lb, t.ub, t.trueLB, t.trueUB = lb, ub, tlb, tub
			any = true
		} else {
			t.lb, t.ub = min(t.lb, lb), max(t.ub, ub)
			t.trueLB, t.trueUB = min(t.trueLB, tlb), max(t.trueUB, tub)
		}
		t.align = t.align.max(c.align)
	}
	return any
}

// Struct is MPI_Type_create_struct: block i is blockLens[i] copies of
// types[i] at disps[i] bytes. Blocks of length 0 add nothing; blocks of
// types without data count for the bounds, but, as in MPICH, a struct
// without any data is empty (see setEmpty) before its markers apply.
//
// MPI_LB and MPI_UB entries set sticky bounds (MPI-2.2 §4.1.6, MPI-4.1
// §5.1.7). Where MPICH 4.0 departs from the standard, the standard is
// followed (the differential test avoids these cases):
//   - several LB (UB) markers: the lowest LB and the highest UB win; MPICH
//     keeps the last one;
//   - markers of block length 0 add no entry to the type map; MPICH counts
//     them;
//   - no data and markers of one kind: lb and ub are both that marker;
//     MPICH takes the missing bound as 0;
//   - an LB marker and no UB marker: the padding makes ub - lb a multiple
//     of the alignment; MPICH pads the data's extent, then moves lb.
//
// Without an UB marker the upper bound is padded so that the extent is a
// multiple of the largest alignment (the epsilon of MPI-4.1 §5.1.2), except,
// as in MPICH, when every block has the same type: MPICH then builds an
// hindexed type, which is not padded. Types of one representation count
// as the same type there (see Basic.mpichHandle), and the alignment is
// MPICH's (MPI_REAL16 and MPI_COMPLEX32 count as 1, Basic.alignment).
// StructPadded pads always, with the ABI's alignments, as the standard and
// Open MPI do.
func Struct(blockLens, disps []int64, types []*Type) (*Type, error) {
	return structOf(blockLens, disps, types, false)
}

// StructPadded is Struct with the padding of every struct without an UB
// marker: MPI-4.1 §5.1.2's rule, which Open MPI follows (the differential
// test against Open MPI 4.1 checks it, datatype/openmpi_test.go).
func StructPadded(blockLens, disps []int64, types []*Type) (*Type, error) {
	return structOf(blockLens, disps, types, true)
}

func structOf(blockLens, disps []int64, types []*Type, padAlways bool) (*Type, error) {
	const fn = "struct"
	if len(blockLens) != len(disps) || len(blockLens) != len(types) {
		return nil, argErr(fn, "arrays", []int{len(blockLens), len(disps), len(types)}, "must have equal lengths")
	}
	for i, b := range blockLens {
		if err := checkNonNeg(fn, indexedArg("blocklengths", i), b); err != nil {
			return nil, err
		}
		if types[i] == nil {
			return nil, argErr(fn, indexedArg("types", i), "MPI_DATATYPE_NULL", "is not a valid datatype")
		}
	}
	if err := checkMagnitude(fn, blockMagnitude(blockLens, disps, types, 1)...); err != nil {
		return nil, err
	}
	t := &Type{Combiner: CombinerStruct, Count: int64(len(blockLens)), BlockLens: clone(blockLens), Disps: clone(disps), Types: clone(types)}
	t.kids = newListKids(t.Disps, t.BlockLens, t.Types)
	hasData := t.setBlocks(t.Disps, t.BlockLens, t.Types, false) && t.size > 0
	if !hasData {
		t.setEmpty()
	}

	var hasLB, hasUB bool
	var markLB, markUB int64
	same := true
	var first *Type
	for i, c := range types {
		if c.Combiner == CombinerNamed && c.Basic.IsMarker() {
			if blockLens[i] == 0 {
				continue
			}
			if c.Basic == LB && (!hasLB || disps[i] < markLB) {
				hasLB, markLB = true, disps[i]
			}
			if c.Basic == UB && (!hasUB || disps[i] > markUB) {
				hasUB, markUB = true, disps[i]
			}
			continue
		}
		if first == nil {
			first = c
		} else if !sameHandle(c, first) {
			same = false
		}
	}
	if hasLB {
		t.lb = markLB
		if !hasData && !hasUB {
			t.ub = markLB
		}
	}
	if hasUB {
		t.ub = markUB
		if !hasData && !hasLB {
			t.lb = markUB
		}
	}
	if !hasUB && (!same || padAlways) {
		// C's % keeps the sign of the dividend, as in MPICH's padding code.
		a := t.align.mpich
		if padAlways {
			a = t.align.abi
		}
		if r := (t.ub - t.lb) % a; r != 0 {
			t.ub += a - r
		}
	}
	return t, nil
}

// sameHandle reports whether MPICH 4.0 sees a and b as one type when it
// decides whether all blocks of a struct have the same type.
func sameHandle(a, b *Type) bool { return mpichIdentity(a) == mpichIdentity(b) }

// mpichIdentity is the type MPICH's type engine (yaksa) compares for
// sameHandle. Constructors that make one copy of their old type at its own
// place return the old type itself there: dup, contiguous of 1, vector or
// an indexed type of one block of 1 at displacement 0, a struct of one such
// block, resized to the old bounds, a subarray or darray of a one-element
// array. Types of one representation are one type (Basic.mpichHandle).
func mpichIdentity(t *Type) *Type {
	for {
		next := t.Old
		switch t.Combiner {
		case CombinerNamed:
			return Predefined(t.Basic.mpichHandle())
		case CombinerDup:
		case CombinerContiguous:
			if t.Count != 1 {
				return t
			}
		case CombinerVector, CombinerHvector:
			if t.Count != 1 || t.BlockLen != 1 {
				return t
			}
		case CombinerIndexed, CombinerHindexed, CombinerIndexedBlock, CombinerHindexedBlock:
			bl := t.BlockLen
			if len(t.BlockLens) == 1 {
				bl = t.BlockLens[0]
			}
			if len(t.Disps) != 1 || t.Disps[0] != 0 || bl != 1 {
				return t
			}
		case CombinerStruct:
			next = nil
			for i, c := range t.Types {
				if !(c.IsPredefined() && c.Basic.IsMarker()) {
					if next != nil || t.BlockLens[i] != 1 || t.Disps[i] != 0 {
						return t
					}
					next = c
				}
			}
			if next == nil || t.lb != next.lb || t.ub != next.ub {
				return t
			}
		case CombinerResized:
			if t.ResizedLB != t.Old.lb || t.ResizedExtent != t.Old.Extent() {
				return t
			}
		case CombinerSubarray, CombinerDarray:
			if t.size == 0 || t.size != t.Old.size || t.Extent() != t.Old.Extent() || t.Old.lb != 0 || t.trueLB != t.Old.trueLB {
				return t
			}
		default:
			return t
		}
		t = next
	}
}

// Resized is MPI_Type_create_resized: old with lower bound lb and extent
// extent, both in bytes (MPI-4.1 §5.1.7).
func Resized(lb, extent int64, old *Type) (*Type, error) {
	if err := checkOld("resized", old); err != nil {
		return nil, err
	}
	if err := checkMagnitude("resized", abs64(lb)+abs64(extent)); err != nil {
		return nil, err
	}
	t := &Type{Combiner: CombinerResized, ResizedLB: lb, ResizedExtent: extent, Old: old}
	t.kids = &stridedKids{count: 1, blockLen: 1, old: old}
	t.size, t.nelem, t.align = old.size, old.nelem, old.align
	t.lb, t.ub = lb, lb+extent
	t.trueLB, t.trueUB = old.trueLB, old.trueUB
	return t, nil
}

// Dup is MPI_Type_dup: a new handle for the same type map. The name is not
// copied (MPI-4.1 §5.1.10 leaves attributes to the copy callbacks and the
// name to the user).
func Dup(old *Type) (*Type, error) {
	if err := checkOld("dup", old); err != nil {
		return nil, err
	}
	t := &Type{Combiner: CombinerDup, Old: old}
	t.kids = &stridedKids{count: 1, blockLen: 1, old: old}
	t.size, t.nelem, t.align = old.size, old.nelem, old.align
	t.lb, t.ub, t.trueLB, t.trueUB = old.lb, old.ub, old.trueLB, old.trueUB
	return t, nil
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	var b [20]byte
	i := len(b)
	for v != 0 {
		d := v % 10
		if d < 0 {
			d = -d
		}
		i--
		b[i] = byte('0' + d)
		v /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
