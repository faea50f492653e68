package datatype

import (
	"fmt"
	"sync"
)

// Combiner says which constructor made a datatype, as MPI_Type_get_envelope
// reports it (MPI-4.1 §5.1.13). The order is part of the registry format:
// append only.
type Combiner uint8

const (
	CombinerNamed Combiner = iota
	CombinerDup
	CombinerContiguous
	CombinerVector
	CombinerHvector
	CombinerIndexed
	CombinerHindexed
	CombinerIndexedBlock
	CombinerHindexedBlock
	CombinerStruct
	CombinerSubarray
	CombinerDarray
	CombinerResized
	numCombiner
)

var combinerNames = [numCombiner]string{
	"NAMED", "DUP", "CONTIGUOUS", "VECTOR", "HVECTOR", "INDEXED", "HINDEXED",
	"INDEXED_BLOCK", "HINDEXED_BLOCK", "STRUCT", "SUBARRAY", "DARRAY", "RESIZED",
}

func (c Combiner) String() string {
	if c < numCombiner {
		return combinerNames[c]
	}
	return fmt.Sprintf("Combiner(%d)", uint8(c))
}

// ParseCombiner accepts a combiner name as String prints it, in any case,
// with or without the "MPI_COMBINER_" prefix.
func ParseCombiner(s string) (Combiner, bool) {
	u := upper(s)
	if len(u) > 13 && u[:13] == "MPI_COMBINER_" {
		u = u[13:]
	}
	for c := Combiner(0); c < numCombiner; c++ {
		if combinerNames[c] == u {
			return c, true
		}
	}
	return 0, false
}

// Order is the storage order of a subarray or darray (MPI_ORDER_C or
// MPI_ORDER_FORTRAN).
type Order uint8

const (
	OrderC Order = iota
	OrderFortran
)

func (o Order) String() string {
	if o == OrderFortran {
		return "FORTRAN"
	}
	return "C"
}

// Distrib is a darray distribution (MPI-4.1 §5.1.4).
type Distrib uint8

const (
	DistribBlock Distrib = iota
	DistribCyclic
	DistribNone
)

func (d Distrib) String() string {
	switch d {
	case DistribBlock:
		return "BLOCK"
	case DistribCyclic:
		return "CYCLIC"
	case DistribNone:
		return "NONE"
	}
	return fmt.Sprintf("Distrib(%d)", uint8(d))
}

// DargDefault is MPI_DISTRIBUTE_DFLT_DARG.
const DargDefault int64 = -1

// Type is an MPI datatype: either predefined (CombinerNamed) or made by one
// constructor from older types. The exported fields hold the constructor's
// arguments as MPI_Type_get_contents returns them and must not be changed
// after construction; everything else is derived once, at construction.
type Type struct {
	Name     string   // MPI_Type_set_name, or the predefined name
	Combiner Combiner // which constructor
	Basic    Basic    // CombinerNamed: which predefined type

	Count     int64   // contiguous, vector, hvector: number of blocks or elements
	BlockLen  int64   // vector, hvector, indexed_block, hindexed_block: old types per block
	Stride    int64   // vector: in units of Old's extent; hvector: in bytes
	BlockLens []int64 // indexed, hindexed, struct: old types per block
	Disps     []int64 // indexed, indexed_block: in units of Old's extent; hindexed, hindexed_block, struct: in bytes
	Types     []*Type // struct: one type per block
	Old       *Type   // every combiner but named and struct

	Sizes, Subsizes, Starts []int64 // subarray
	Order                   Order   // subarray, darray

	Size, Rank int64     // darray: number of processes and this process's rank
	Gsizes     []int64   // darray: global array sizes
	Distribs   []Distrib // darray
	Dargs      []int64   // darray: DargDefault or the distribution argument
	Psizes     []int64   // darray: process grid

	ResizedLB, ResizedExtent int64 // resized: the new lb and extent, in bytes

	size, nelem    int64     // bytes of data and number of basic elements per instance
	lb, ub         int64     // bounds with markers and alignment, in bytes
	trueLB, trueUB int64     // bounds of the data alone, in bytes
	align          alignment // largest alignment of any basic element
	kids           kids      // the blocks one instance is made of

	sigOnce sync.Once
	sig     *Sig // regular signature, built on first use
	layOnce sync.Once
	lay     *layout // blocks and strided layout, built on first use
}

// Predefined returns the predefined datatype b. It panics for an invalid b.
func Predefined(b Basic) *Type {
	if !b.Valid() {
		panic(fmt.Sprintf("datatype: %v is not a predefined type", b))
	}
	return predefined[b]
}

var predefined = func() [numBasic]*Type {
	var p [numBasic]*Type
	for b := Basic(1); b < numBasic; b++ {
		t := &Type{Name: b.String(), Combiner: CombinerNamed, Basic: b}
		switch {
		case b.IsMarker():
			t.align = align1
		case b.IsPair():
			f, at := b.Fields()
			t.size, t.nelem, t.align = b.Size(), 2, b.alignment()
			t.ub = b.extent()
			t.trueUB = at[1] + f[1].Size()
		default:
			t.size, t.nelem, t.align = b.Size(), 1, b.alignment()
			t.ub, t.trueUB = t.size, t.size
		}
		p[b] = t
	}
	for b := Basic(1); b < numBasic; b++ {
		if b.IsPair() {
			f, at := b.Fields()
			k := newListKids(at[:], []int64{1, 1}, []*Type{p[f[0]], p[f[1]]})
			k.pair = true
			p[b].kids = k
		}
	}
	return p
}()

// IsPredefined reports whether t is a predefined datatype.
func (t *Type) IsPredefined() bool { return t.Combiner == CombinerNamed }

// TypeSize is MPI_Type_size: the number of bytes of data, in bytes.
func (t *Type) TypeSize() int64 { return t.size }

// NumElements is the number of basic elements (pair types count two).
func (t *Type) NumElements() int64 { return t.nelem }

// LB is the lower bound (MPI_Type_get_extent), in bytes.
func (t *Type) LB() int64 { return t.lb }

// UB is the upper bound, lb + extent, in bytes.
func (t *Type) UB() int64 { return t.ub }

// Extent is ub - lb, in bytes: the stride between consecutive instances.
func (t *Type) Extent() int64 { return t.ub - t.lb }

// TrueLB is the lowest byte any element occupies (MPI_Type_get_true_extent).
func (t *Type) TrueLB() int64 { return t.trueLB }

// TrueUB is one past the highest byte any element occupies.
func (t *Type) TrueUB() int64 { return t.trueUB }

// TrueExtent is TrueUB - TrueLB, in bytes.
func (t *Type) TrueExtent() int64 { return t.trueUB - t.trueLB }

// Align is the largest alignment of the basic types t holds, in bytes.
func (t *Type) Align() int64 { return t.align.abi }

// alignment is the largest alignment of the basic types a type holds, in
// bytes, by the ABI (MPI-4.1 §5.1.2's k_i, which Open MPI follows) and by
// MPICH 4.0 (which differs for some types, Basic.mpichAlign).
type alignment struct{ abi, mpich int64 }

var align1 = alignment{1, 1}

func (a alignment) max(b alignment) alignment {
	return alignment{max(a.abi, b.abi), max(a.mpich, b.mpich)}
}

// Label is the name of t for people: its name if it has one, else its
// combiner ("VECTOR").
func (t *Type) Label() string {
	if t.Name != "" {
		return t.Name
	}
	return t.Combiner.String()
}

// SetName sets the name (MPI_Type_set_name) and returns t.
func (t *Type) SetName(name string) *Type { t.Name = name; return t }

// leaf reports whether t is a basic element that walks yield as itself.
func (t *Type) leaf() bool { return t.Combiner == CombinerNamed && !t.Basic.IsPair() }

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
