package datatype

import (
	"encoding/binary"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestFortranBasics checks the Fortran types' sizes, bounds and names
// against gfortran's layout on x86_64 (the differential tests check them
// against MPICH and Open MPI too).
func TestFortranBasics(t *testing.T) {
	tests := []struct {
		b                  Basic
		name               string
		size, extent, algn int64
	}{
		{Integer, "INTEGER", 4, 4, 4},
		{Real, "REAL", 4, 4, 4},
		{DoublePrecision, "DOUBLE_PRECISION", 8, 8, 8},
		{Complex, "COMPLEX", 8, 8, 4},
		{DoubleComplex, "DOUBLE_COMPLEX", 16, 16, 8},
		{Logical, "LOGICAL", 4, 4, 4},
		{Character, "CHARACTER", 1, 1, 1},
		{Integer1, "INTEGER1", 1, 1, 1},
		{Integer2, "INTEGER2", 2, 2, 2},
		{Integer4, "INTEGER4", 4, 4, 4},
		{Integer8, "INTEGER8", 8, 8, 8},
		{Integer16, "INTEGER16", 16, 16, 16},
		{Real2, "REAL2", 2, 2, 2},
		{Real4, "REAL4", 4, 4, 4},
		{Real8, "REAL8", 8, 8, 8},
		{Real16, "REAL16", 16, 16, 16},
		{Complex4, "COMPLEX4", 4, 4, 2},
		{Complex8, "COMPLEX8", 8, 8, 4},
		{Complex16, "COMPLEX16", 16, 16, 8},
		{Complex32, "COMPLEX32", 32, 32, 16},
		{TwoInteger, "2INTEGER", 8, 8, 4},
		{TwoReal, "2REAL", 8, 8, 4},
		{TwoDoublePrecision, "2DOUBLE_PRECISION", 16, 16, 8},
	}
	if len(tests) != int(numBasic-Integer) {
		t.Fatalf("%d Fortran types tested, the model has %d", len(tests), numBasic-Integer)
	}
	for _, tt := range tests {
		p := P(tt.b)
		if tt.b.String() != tt.name || p.Name != tt.name || p.TypeSize() != tt.size || p.Extent() != tt.extent || p.LB() != 0 ||
			p.TrueLB() != 0 || p.TrueExtent() != tt.extent || p.Align() != tt.algn {
			t.Errorf("%v: name %q size %d lb %d extent %d true %d+%d align %d; want %q, %d, 0, %d, 0+%d, %d", tt.b, p.Name,
				p.TypeSize(), p.LB(), p.Extent(), p.TrueLB(), p.TrueExtent(), p.Align(), tt.name, tt.size, tt.extent, tt.extent, tt.algn)
		}
		if b, ok := ParseBasic("mpi_" + strings.ToLower(tt.name)); !ok || b != tt.b {
			t.Errorf("ParseBasic(%q) = %v, %v", "mpi_"+strings.ToLower(tt.name), b, ok)
		}
		if tt.b.IsPair() != strings.HasPrefix(tt.name, "2") {
			t.Errorf("%v: IsPair %v", tt.b, tt.b.IsPair())
		}
	}
	// the Fortran pairs are two values end to end (MPI-4.1 §6.9.4)
	for b, v := range map[Basic]Basic{TwoInteger: Integer, TwoReal: Real, TwoDoublePrecision: DoublePrecision} {
		f, at := b.Fields()
		if f != [2]Basic{v, v} || at != [2]int64{0, v.Size()} || P(b).NumElements() != 2 {
			t.Errorf("%v: fields %v at %v", b, f, at)
		}
	}
}

// TestFortranStructs checks the struct rules with Fortran types: MPICH's
// (Struct) and Open MPI's (StructPadded), as measured with MPICH 4.0.2
// and Open MPI 4.1.
func TestFortranStructs(t *testing.T) {
	tests := []struct {
		expr          string
		mpich, padded int64 // the extents
	}{
		{"struct([1,1],[0,1],[INTEGER,INT])", 5, 8}, // MPICH: one 4-byte integer type
		{"struct([1,1],[0,1],[LOGICAL,INTEGER4])", 5, 8},
		{"struct([1,1],[0,1],[REAL,FLOAT])", 5, 8},
		{"struct([1,1],[0,1],[COMPLEX,2REAL])", 9, 12},
		{"struct([1,1],[0,1],[2INTEGER,2INT])", 9, 12},
		{"struct([1,1],[0,1],[INTEGER,REAL])", 8, 8},
		{"struct([1,1],[0,8],[COMPLEX,CHAR])", 12, 12},
		{"struct([1,1],[0,16],[REAL16,CHAR])", 17, 32}, // MPICH: REAL16 unaligned
		{"struct([1,1],[0,32],[COMPLEX32,SHORT])", 34, 48},
		{"struct([1,1],[0,16],[contiguous(1,REAL16),CHAR])", 17, 32},
	}
	for _, tt := range tests {
		m, err := ParseExpr(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		o, err := parseExpr(tt.expr, true)
		if err != nil {
			t.Fatal(err)
		}
		if m.Extent() != tt.mpich || o.Extent() != tt.padded {
			t.Errorf("%s: extent %d (MPICH's rule), %d (padded); want %d, %d", tt.expr, m.Extent(), o.Extent(), tt.mpich, tt.padded)
		}
	}
}

// TestFortranMatching: every Fortran type matches only itself (MPI-4.1
// §3.3.1), whatever C type has its size; MPI_BYTE and MPI_PACKED treat
// them as they treat the C types.
func TestFortranMatching(t *testing.T) {
	ty := func(s string) *Type { return mustType(ParseExpr(s)) }
	tests := []struct {
		send       string
		sendCount  int64
		recv       string
		recvCount  int64
		kind       MatchKind
		sendB, rcv Basic
	}{
		{"INTEGER", 4, "INTEGER", 4, Match, 0, 0},
		{"INTEGER", 4, "INT", 4, Mismatch, Integer, Int},
		{"INT", 4, "INTEGER", 4, Mismatch, Int, Integer},
		{"INTEGER", 1, "REAL", 1, Mismatch, Integer, Real},
		{"INTEGER", 1, "INTEGER4", 1, Mismatch, Integer, Integer4},
		{"INTEGER", 1, "LOGICAL", 1, Mismatch, Integer, Logical},
		{"REAL", 1, "FLOAT", 1, Mismatch, Real, Float},
		{"DOUBLE_PRECISION", 1, "DOUBLE", 1, Mismatch, DoublePrecision, Double},
		{"DOUBLE_PRECISION", 1, "REAL8", 1, Mismatch, DoublePrecision, Real8},
		{"COMPLEX", 1, "C_FLOAT_COMPLEX", 1, Mismatch, Complex, CFloatComplex},
		{"CHARACTER", 1, "CHAR", 1, Mismatch, Character, Char},
		{"LOGICAL", 1, "C_BOOL", 1, Mismatch, Logical, CBool},
		// a pair type is its two fields (§6.9.4)
		{"2REAL", 3, "REAL", 6, Match, 0, 0},
		{"2INTEGER", 1, "contiguous(2,INTEGER)", 1, Match, 0, 0},
		{"2DOUBLE_PRECISION", 1, "DOUBLE_PRECISION", 3, Prefix, 0, 0},
		{"2REAL", 1, "2INT", 1, Mismatch, Real, Int},
		{"2INTEGER", 1, "2INT", 1, Mismatch, Integer, Int},
		{"COMPLEX", 1, "2REAL", 1, Mismatch, Complex, Real},
		// MPI_BYTE matches only MPI_BYTE; MPI_PACKED matches any type
		{"INTEGER", 2, "BYTE", 8, Mismatch, Integer, Byte},
		{"BYTE", 4, "CHARACTER", 4, Mismatch, Byte, Character},
		{"INTEGER", 3, "PACKED", 12, Match, 0, 0},
		{"PACKED", 16, "DOUBLE_COMPLEX", 1, Match, 0, 0},
		{"PACKED", 8, "2DOUBLE_PRECISION", 1, Prefix, 0, 0},
	}
	for _, tt := range tests {
		r := MatchTypes(ty(tt.send), tt.sendCount, ty(tt.recv), tt.recvCount)
		if r.Kind != tt.kind || r.Kind == Mismatch && (r.Send != tt.sendB || r.Recv != tt.rcv) {
			t.Errorf("%d %s -> %d %s: got %v (%v, %v), want %v (%v, %v)", tt.sendCount, tt.send, tt.recvCount, tt.recv,
				r.Kind, r.Send, r.Recv, tt.kind, tt.sendB, tt.rcv)
		}
	}
	// the signature of 2REAL is two REALs, as the wire carries it
	if got := P(TwoReal).Signature().Runs(); len(got) != 1 || got[0] != (Run{Real, 2}) {
		t.Errorf("2REAL's signature: %v", got)
	}
}

func TestFortranValues(t *testing.T) {
	le := binary.LittleEndian
	f32 := func(v float32) []byte { return le.AppendUint32(nil, math.Float32bits(v)) }
	f64 := func(v float64) []byte { return le.AppendUint64(nil, math.Float64bits(v)) }
	// -2.5 as IEEE binary128: sign 1, exponent 16384, fraction .01
	q := make([]byte, 16)
	le.PutUint64(q[8:], 1<<63|16384<<48|1<<46)
	i128 := make([]byte, 16) // -3
	le.PutUint64(i128, ^uint64(2))
	le.PutUint64(i128[8:], ^uint64(0))
	tests := []struct {
		b    Basic
		raw  []byte
		want string
	}{
		{Integer, le.AppendUint32(nil, uint32(0xfffffff9)), "-7"},
		{Integer1, []byte{0xff}, "-1"},
		{Integer2, []byte{0x10, 0x27}, "10000"},
		{Integer8, le.AppendUint64(nil, 1<<40), "1099511627776"},
		{Integer16, i128, "-3"},
		{Logical, []byte{1, 0, 0, 0}, ".TRUE."},
		{Logical, []byte{0, 0, 0, 0}, ".FALSE."},
		{Logical, []byte{0xff, 0xff, 0xff, 0xff}, ".TRUE. (0xffffffff)"},
		{Character, []byte{'x'}, "120 'x'"},
		{Real, f32(0.25), "0.25"},
		{Real4, f32(-3), "-3"},
		{DoublePrecision, f64(1e-3), "0.001"},
		{Real2, []byte{0x00, 0x3e}, "1.5"}, // binary16 0x3e00
		{Real16, q, "-2.5"},
		{Complex, append(f32(1), f32(-2)...), "(1,-2)"},
		{DoubleComplex, append(f64(0.5), f64(4)...), "(0.5,4)"},
		{Complex32, append(append([]byte{}, q...), q...), "(-2.5,-2.5)"},
		{Complex4, []byte{0x00, 0x3c, 0x00, 0xc0}, "(1,-2)"},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.b, tt.raw); got != tt.want {
			t.Errorf("%v % x: got %q, want %q", tt.b, tt.raw, got, tt.want)
		}
	}
}

// TestOps checks the operation rules of MPI-4.1 §6.9.2 on examples of
// every category, and that Op numbers the operations as the shim does.
func TestOps(t *testing.T) {
	allowed := map[Op][]Basic{
		OpMax:     {Int, UnsignedChar, Integer, Integer8, Float, Real, DoublePrecision, Real16, Aint},
		OpSum:     {Int, Integer, Real, Complex, DoubleComplex, CFloatComplex, Complex32, Count},
		OpLand:    {Int, Logical, CBool},
		OpLxor:    {Long, Logical},
		OpBand:    {Int, Integer, Integer2, Byte, Offset},
		OpMinloc:  {TwoInteger, TwoReal, TwoDoublePrecision, DoubleInt, TwoInt},
		OpMaxloc:  {TwoReal, ShortInt},
		OpReplace: {Integer, Logical, Character, Complex, TwoReal, Packed},
	}
	denied := map[Op][]Basic{
		OpMax:    {Complex, DoubleComplex, CFloatComplex, Logical, CBool, Byte, Char, Character, TwoInteger},
		OpSum:    {Logical, Character, Byte, TwoReal},
		OpLand:   {Integer, Real, Byte, Complex},
		OpBand:   {Logical, Real, Complex, CBool},
		OpMinloc: {Integer, Real, Complex},
		OpNoOp:   {LB, UB},
	}
	for o, bs := range allowed {
		for _, b := range bs {
			if !o.Allows(b) {
				t.Errorf("MPI_%v on MPI_%v: not allowed, want allowed", o, b)
			}
		}
	}
	for o, bs := range denied {
		for _, b := range bs {
			if o.Allows(b) {
				t.Errorf("MPI_%v on MPI_%v: allowed, want not", o, b)
			}
		}
	}
	// every data type is in a category, but for the characters and MPI_PACKED
	for b := Basic(1); b < numBasic; b++ {
		none := b.IsMarker() || b == Char || b == WChar || b == Character || b == Packed
		if (b.Class() == ClassNone) != none {
			t.Errorf("MPI_%v: class %d", b, b.Class())
		}
	}
	src, err := os.ReadFile("../shim/shim.h")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`#define MPIDBG_BUILTIN_OPS\(X\) \\\n((?:\s*X\(\w+\))+)`).FindSubmatch(src)
	if m == nil {
		t.Fatal("shim/shim.h: no MPIDBG_BUILTIN_OPS list")
	}
	names := regexp.MustCompile(`X\((\w+)\)`).FindAllSubmatch(m[1], -1)
	if len(names) != int(numOp)-1 {
		t.Fatalf("shim.h lists %d operations, Op has %d", len(names), numOp-1)
	}
	for i, n := range names {
		if o := Op(i + 1); o.String() != string(n[1]) {
			t.Errorf("operation %d: shim.h says MPI_%s, Op says MPI_%v", i+1, n[1], o)
		}
	}
}
