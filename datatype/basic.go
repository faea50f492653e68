package datatype

import (
	"fmt"
	"strings"
)

// Basic identifies a predefined MPI datatype of the C binding (MPI-4.1 §3.2.2,
// §5.1.2 and Annex A.1.1), one of the Fortran binding (§3.2.2, Annex A.1.1;
// C programs may use them too, §19.3.6), a pair type for MINLOC/MAXLOC
// (§6.9.4), or one of the MPI-1 bound markers MPI_LB and MPI_UB (removed in
// MPI-3.0, still accepted by MPICH). Every Basic is a type of its own for
// type matching (§3.3.1): MPI_INTEGER matches MPI_INTEGER only, not MPI_INT
// nor MPI_INTEGER4, whatever their sizes.
type Basic uint8

// Predefined datatypes. The order is part of the registry format: append only.
const (
	BasicInvalid Basic = iota
	Char
	SignedChar
	UnsignedChar
	Byte
	WChar
	Short
	UnsignedShort
	Int
	Unsigned
	Long
	UnsignedLong
	LongLong
	UnsignedLongLong
	Float
	Double
	LongDouble
	Int8
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	CBool
	CFloatComplex
	CDoubleComplex
	CLongDoubleComplex
	Aint
	Offset
	Count
	Packed
	LB
	UB
	FloatInt
	DoubleInt
	LongInt
	TwoInt
	ShortInt
	LongDoubleInt
	// The Fortran types, at the sizes gfortran gives them on x86_64 (a
	// library built for other kinds has other sizes: the shim then leaves
	// the type unmodelled, shim/reg.c).
	Integer
	Real
	DoublePrecision
	Complex
	DoubleComplex
	Logical
	Character
	Integer1
	Integer2
	Integer4
	Integer8
	Integer16
	Real2
	Real4
	Real8
	Real16
	Complex4
	Complex8
	Complex16
	Complex32
	TwoInteger
	TwoReal
	TwoDoublePrecision
	numBasic
)

// basicInfo is what the ABI fixes for one predefined type: its size and
// alignment in bytes on LP64 Linux (x86_64, aarch64) with gcc and gfortran,
// and for the pair types their two fields.
type basicInfo struct {
	name    string // MPI name without the MPI_ prefix
	size    int64  // in bytes
	align   int64  // in bytes
	fields  [2]Basic
	fieldAt [2]int64 // byte displacement of each field
	aliases []string
	// mpichAlign, when not 0, is the alignment MPICH 4.0 pads structs
	// with instead of align: it has no alignment for MPI_REAL16 and
	// MPI_COMPLEX32 and takes 1 (measured with MPICH 4.0.2).
	mpichAlign int64
}

var basics = [numBasic]basicInfo{
	BasicInvalid:       {name: "DATATYPE_NULL"},
	Char:               {name: "CHAR", size: 1, align: 1},
	SignedChar:         {name: "SIGNED_CHAR", size: 1, align: 1},
	UnsignedChar:       {name: "UNSIGNED_CHAR", size: 1, align: 1},
	Byte:               {name: "BYTE", size: 1, align: 1},
	WChar:              {name: "WCHAR", size: 4, align: 4},
	Short:              {name: "SHORT", size: 2, align: 2},
	UnsignedShort:      {name: "UNSIGNED_SHORT", size: 2, align: 2},
	Int:                {name: "INT", size: 4, align: 4},
	Unsigned:           {name: "UNSIGNED", size: 4, align: 4},
	Long:               {name: "LONG", size: 8, align: 8},
	UnsignedLong:       {name: "UNSIGNED_LONG", size: 8, align: 8},
	LongLong:           {name: "LONG_LONG", size: 8, align: 8, aliases: []string{"LONG_LONG_INT"}},
	UnsignedLongLong:   {name: "UNSIGNED_LONG_LONG", size: 8, align: 8},
	Float:              {name: "FLOAT", size: 4, align: 4},
	Double:             {name: "DOUBLE", size: 8, align: 8},
	LongDouble:         {name: "LONG_DOUBLE", size: 16, align: 16},
	Int8:               {name: "INT8_T", size: 1, align: 1},
	Int16:              {name: "INT16_T", size: 2, align: 2},
	Int32:              {name: "INT32_T", size: 4, align: 4},
	Int64:              {name: "INT64_T", size: 8, align: 8},
	Uint8:              {name: "UINT8_T", size: 1, align: 1},
	Uint16:             {name: "UINT16_T", size: 2, align: 2},
	Uint32:             {name: "UINT32_T", size: 4, align: 4},
	Uint64:             {name: "UINT64_T", size: 8, align: 8},
	CBool:              {name: "C_BOOL", size: 1, align: 1},
	CFloatComplex:      {name: "C_FLOAT_COMPLEX", size: 8, align: 4, aliases: []string{"C_COMPLEX"}},
	CDoubleComplex:     {name: "C_DOUBLE_COMPLEX", size: 16, align: 8},
	CLongDoubleComplex: {name: "C_LONG_DOUBLE_COMPLEX", size: 32, align: 16},
	Aint:               {name: "AINT", size: 8, align: 8},
	Offset:             {name: "OFFSET", size: 8, align: 8},
	Count:              {name: "COUNT", size: 8, align: 8},
	Packed:             {name: "PACKED", size: 1, align: 1},
	LB:                 {name: "LB"},
	UB:                 {name: "UB"},
	// Pair types are defined "as if" by MPI_TYPE_CREATE_STRUCT with the C
	// struct's natural layout (MPI-4.1 §6.9.4).
	FloatInt:      {name: "FLOAT_INT", align: 4, fields: [2]Basic{Float, Int}, fieldAt: [2]int64{0, 4}},
	DoubleInt:     {name: "DOUBLE_INT", align: 8, fields: [2]Basic{Double, Int}, fieldAt: [2]int64{0, 8}},
	LongInt:       {name: "LONG_INT", align: 8, fields: [2]Basic{Long, Int}, fieldAt: [2]int64{0, 8}},
	TwoInt:        {name: "2INT", align: 4, fields: [2]Basic{Int, Int}, fieldAt: [2]int64{0, 4}},
	ShortInt:      {name: "SHORT_INT", align: 4, fields: [2]Basic{Short, Int}, fieldAt: [2]int64{0, 4}},
	LongDoubleInt: {name: "LONG_DOUBLE_INT", align: 16, fields: [2]Basic{LongDouble, Int}, fieldAt: [2]int64{0, 16}},
	// Fortran: INTEGER, REAL and LOGICAL of one numeric storage unit (4
	// bytes), DOUBLE PRECISION of two; COMPLEX is two REALs and aligned as
	// one. REAL*16 is IEEE quad precision (gfortran's __float128), not
	// the x87 long double.
	Integer:         {name: "INTEGER", size: 4, align: 4},
	Real:            {name: "REAL", size: 4, align: 4},
	DoublePrecision: {name: "DOUBLE_PRECISION", size: 8, align: 8},
	Complex:         {name: "COMPLEX", size: 8, align: 4},
	DoubleComplex:   {name: "DOUBLE_COMPLEX", size: 16, align: 8},
	Logical:         {name: "LOGICAL", size: 4, align: 4},
	Character:       {name: "CHARACTER", size: 1, align: 1},
	Integer1:        {name: "INTEGER1", size: 1, align: 1},
	Integer2:        {name: "INTEGER2", size: 2, align: 2},
	Integer4:        {name: "INTEGER4", size: 4, align: 4},
	Integer8:        {name: "INTEGER8", size: 8, align: 8},
	Integer16:       {name: "INTEGER16", size: 16, align: 16},
	Real2:           {name: "REAL2", size: 2, align: 2},
	Real4:           {name: "REAL4", size: 4, align: 4},
	Real8:           {name: "REAL8", size: 8, align: 8},
	Real16:          {name: "REAL16", size: 16, align: 16, mpichAlign: 1},
	Complex4:        {name: "COMPLEX4", size: 4, align: 2},
	Complex8:        {name: "COMPLEX8", size: 8, align: 4},
	Complex16:       {name: "COMPLEX16", size: 16, align: 8},
	Complex32:       {name: "COMPLEX32", size: 32, align: 16, mpichAlign: 1},
	// The Fortran pair types are "as if" MPI_TYPE_CONTIGUOUS(2, ...) of
	// their value type (MPI-4.1 §6.9.4): two fields end to end.
	TwoInteger:         {name: "2INTEGER", align: 4, fields: [2]Basic{Integer, Integer}, fieldAt: [2]int64{0, 4}},
	TwoReal:            {name: "2REAL", align: 4, fields: [2]Basic{Real, Real}, fieldAt: [2]int64{0, 4}},
	TwoDoublePrecision: {name: "2DOUBLE_PRECISION", align: 8, fields: [2]Basic{DoublePrecision, DoublePrecision}, fieldAt: [2]int64{0, 8}},
}

// String returns the MPI name without the "MPI_" prefix, e.g. "DOUBLE_INT".
func (b Basic) String() string {
	if b >= numBasic {
		return fmt.Sprintf("Basic(%d)", uint8(b))
	}
	return basics[b].name
}

// Valid reports whether b names a predefined datatype.
func (b Basic) Valid() bool { return b > BasicInvalid && b < numBasic }

// IsPair reports whether b is one of the MINLOC/MAXLOC pair types.
func (b Basic) IsPair() bool { return b.Valid() && basics[b].fields[0] != BasicInvalid }

// IsMarker reports whether b is MPI_LB or MPI_UB.
func (b Basic) IsMarker() bool { return b == LB || b == UB }

// Size returns the number of bytes one value occupies (MPI_Type_size).
func (b Basic) Size() int64 {
	if b.IsPair() {
		f := basics[b].fields
		return basics[f[0]].size + basics[f[1]].size
	}
	return basics[b].size
}

// Align returns the alignment in bytes the C (or Fortran) ABI requires for
// the type; it is the k_i of the extent rule in MPI-4.1 §5.1.2.
func (b Basic) Align() int64 { return basics[b].align }

// alignment is b's alignment by the ABI and by MPICH 4.0, which pads a
// struct holding MPI_REAL16 or MPI_COMPLEX32 as if they needed none.
func (b Basic) alignment() alignment {
	a := alignment{basics[b].align, basics[b].mpichAlign}
	if a.mpich == 0 {
		a.mpich = a.abi
	}
	return a
}

// Fields returns the two fields of a pair type and their byte displacements.
func (b Basic) Fields() (types [2]Basic, disps [2]int64) {
	return basics[b].fields, basics[b].fieldAt
}

// mpichHandle is the type MPICH 4.0 puts in b's place before it builds a
// struct (MPIR_DATATYPE_REPLACE_BUILTIN): types of one representation
// become one internal type, so that a struct of MPI_INT and MPI_UNSIGNED
// blocks counts as one of a single type and is not padded. Measured with
// MPICH 4.0.2 (struct([1,1],[0,1],[A,B]) is unpadded exactly for these
// pairs): the integer types of 2, 4 and 8 bytes, Fortran's INTEGERn and
// LOGICAL among them; FLOAT, REAL and REAL4; DOUBLE, DOUBLE PRECISION and
// REAL8; the complex types of one part type with the pair of two of those
// parts (2REAL, 2DOUBLE_PRECISION); 2INT and 2INTEGER. Types of 1 byte need
// no padding either way.
func (b Basic) mpichHandle() Basic {
	switch b {
	case Short, UnsignedShort, Int16, Uint16, Integer2:
		return Int16
	case Int, Unsigned, Int32, Uint32, Integer, Integer4, Logical:
		return Int32
	case Long, UnsignedLong, LongLong, UnsignedLongLong, Int64, Uint64, Aint, Offset, Count, Integer8:
		return Int64
	case Float, Real, Real4:
		return Float
	case Double, DoublePrecision, Real8:
		return Double
	case CFloatComplex, Complex, Complex8, TwoReal:
		return CFloatComplex
	case CDoubleComplex, DoubleComplex, Complex16, TwoDoublePrecision:
		return CDoubleComplex
	case TwoInt, TwoInteger:
		return TwoInt
	}
	return b
}

// extent of a predefined type: a pair type's natural struct extent.
func (b Basic) extent() int64 {
	if !b.IsPair() {
		return basics[b].size
	}
	i := basics[b]
	ub := i.fieldAt[1] + basics[i.fields[1]].size
	return roundUp(ub, i.align)
}

// ParseBasic accepts a predefined type name with or without the "MPI_"
// prefix, in any case: "MPI_DOUBLE", "double", "LONG_LONG_INT".
func ParseBasic(s string) (Basic, bool) {
	u := strings.TrimPrefix(strings.ToUpper(s), "MPI_")
	for b := Basic(1); b < numBasic; b++ {
		if basics[b].name == u {
			return b, true
		}
		for _, a := range basics[b].aliases {
			if a == u {
				return b, true
			}
		}
	}
	return BasicInvalid, false
}

// roundUp rounds v up to a multiple of a (a > 0), also for negative v.
func roundUp(v, a int64) int64 {
	if a <= 1 {
		return v
	}
	r := v % a
	if r < 0 {
		r += a
	}
	if r == 0 {
		return v
	}
	return v + a - r
}
