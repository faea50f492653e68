package datatype

import "fmt"

// Op is a predefined reduction operation (MPI-4.1 §6.9.2), or MPI_REPLACE
// and MPI_NO_OP, which only the accumulate functions take (§12.3.4).
// They are numbered as the shim numbers them for every MPI library
// (shim.h's MPIDBG_BUILTIN_OPS), so that the number travels between
// ranks; 0 is no predefined operation.
type Op uint8

const (
	OpNone Op = iota
	OpMax
	OpMin
	OpSum
	OpProd
	OpLand
	OpBand
	OpLor
	OpBor
	OpLxor
	OpBxor
	OpMinloc
	OpMaxloc
	OpReplace
	OpNoOp
	numOp
)

var opNames = [numOp]string{"", "MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR",
	"MINLOC", "MAXLOC", "REPLACE", "NO_OP"}

// String returns the MPI name without the "MPI_" prefix, e.g. "MINLOC".
func (o Op) String() string {
	if o == OpNone || o >= numOp {
		return fmt.Sprintf("Op(%d)", uint8(o))
	}
	return opNames[o]
}

// Class is the category of a predefined datatype in MPI-4.1 §6.9.2, which
// says what each predefined operation may be applied to.
type Class uint8

const (
	// ClassNone: no predefined reduction applies: the printable
	// characters (MPI_CHAR, MPI_WCHAR, MPI_CHARACTER), which §6.9.2
	// excludes from reductions, MPI_PACKED and the markers.
	ClassNone Class = iota
	ClassCInteger
	ClassFortranInteger
	ClassFloatingPoint
	ClassLogical
	ClassComplex
	ClassByte
	ClassMultiLanguage // MPI_AINT, MPI_OFFSET, MPI_COUNT
	ClassPair          // the MINLOC and MAXLOC pair types (§6.9.4)
)

// Class returns b's category for the predefined operations.
func (b Basic) Class() Class {
	switch b {
	case Int, Long, Short, UnsignedShort, Unsigned, UnsignedLong, LongLong, UnsignedLongLong, SignedChar, UnsignedChar,
		Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64:
		return ClassCInteger
	case Integer, Integer1, Integer2, Integer4, Integer8, Integer16:
		return ClassFortranInteger
	case Float, Double, LongDouble, Real, DoublePrecision, Real2, Real4, Real8, Real16:
		return ClassFloatingPoint
	case Logical, CBool:
		return ClassLogical
	case CFloatComplex, CDoubleComplex, CLongDoubleComplex, Complex, DoubleComplex, Complex4, Complex8, Complex16, Complex32:
		return ClassComplex
	case Byte:
		return ClassByte
	case Aint, Offset, Count:
		return ClassMultiLanguage
	}
	if b.IsPair() {
		return ClassPair
	}
	return ClassNone
}

// opClasses lists the categories each operation allows (MPI-4.1 §6.9.2).
var opClasses = [numOp][]Class{
	OpMax:    {ClassCInteger, ClassFortranInteger, ClassFloatingPoint, ClassMultiLanguage},
	OpMin:    {ClassCInteger, ClassFortranInteger, ClassFloatingPoint, ClassMultiLanguage},
	OpSum:    {ClassCInteger, ClassFortranInteger, ClassFloatingPoint, ClassComplex, ClassMultiLanguage},
	OpProd:   {ClassCInteger, ClassFortranInteger, ClassFloatingPoint, ClassComplex, ClassMultiLanguage},
	OpLand:   {ClassCInteger, ClassLogical},
	OpLor:    {ClassCInteger, ClassLogical},
	OpLxor:   {ClassCInteger, ClassLogical},
	OpBand:   {ClassCInteger, ClassFortranInteger, ClassByte, ClassMultiLanguage},
	OpBor:    {ClassCInteger, ClassFortranInteger, ClassByte, ClassMultiLanguage},
	OpBxor:   {ClassCInteger, ClassFortranInteger, ClassByte, ClassMultiLanguage},
	OpMinloc: {ClassPair},
	OpMaxloc: {ClassPair},
}

// Allows reports whether the predefined operation o may be applied to
// values of the predefined type b: MPI-4.1 §6.9.2 for the reductions;
// MPI_REPLACE and MPI_NO_OP take any predefined type that holds data
// (§12.3.4).
func (o Op) Allows(b Basic) bool {
	if !b.Valid() || b.IsMarker() {
		return false
	}
	switch o {
	case OpReplace, OpNoOp:
		return true
	case OpNone:
		return false
	}
	if o >= numOp {
		return false
	}
	c := b.Class()
	for _, k := range opClasses[o] {
		if c == k {
			return true
		}
	}
	return false
}
