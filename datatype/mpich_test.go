package datatype

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

// The differential test: testprogs/typediff builds each type with MPICH's
// own constructors and reports its size, bounds and MPI_Pack output; the
// model must predict all of it.

const maxDiffSpan = 1 << 16 // bytes a random type's instances may span

var (
	typediffSeed = flag.Uint64("typediff.seed", 20240601, "seed of TestMPICH's random types")
	typediffN    = flag.Int("typediff.n", 800, "number of random types TestMPICH compares")
)

// mpichCases are hand-picked "COUNT EXPR" lines: every constructor and
// the edge cases of the bounds rules. A line the model rejects must make
// typediff answer "ERR" too.
var mpichCases = []string{
	"3 vector(2,5,3,CHAR)",
	"2 vector(3,2,-4,INT)",
	"1 vector(3,2,1,INT)", // overlapping blocks
	"2 vector(3,2,0,SHORT)",
	"2 vector(3,0,2,INT)", // zero block length still spans the strides
	"1 vector(0,3,2,INT)",
	"3 hvector(3,1,-20,DOUBLE)",
	"2 hvector(2,2,5,SHORT_INT)",
	"2 contiguous(0,INT)",
	"2 contiguous(3,LONG_DOUBLE_INT)",
	"1 indexed([0,2,0],[5,1,-3],INT)",
	"2 indexed([2,1],[3,-2],DOUBLE_INT)",
	"1 indexed([],[],INT)",
	"2 indexed([0,0],[4,8],INT)",
	"1 hindexed([1,2],[0,-9],FLOAT_INT)",
	"1 indexed_block(2,[3,0,-2],INT)",
	"1 indexed_block(0,[1,2],INT)",
	"2 hindexed_block(1,[7,-5],DOUBLE)",
	"2 hindexed_block(2,[],CHAR)",
	// negative extents
	"3 resized(0,-8,INT)",
	"2 contiguous(3,resized(4,-12,DOUBLE))",
	"2 vector(2,2,3,resized(0,-4,SHORT))",
	"2 vector(2,2,-3,resized(-2,-4,SHORT))",
	"2 resized(-4,16,INT)",
	"1 resized(3,0,vector(2,1,2,INT))",
	// structs with markers
	"2 struct([1,1,1],[-4,0,12],[LB,INT,UB])",
	"1 struct([1,1],[0,8],[INT,UB])",
	"2 struct([1,1],[2,0],[LB,DOUBLE])",
	"2 struct([1,1],[3,9],[LB,UB])",
	"1 struct([1,1],[5,0],[UB,SHORT])",
	"1 struct([2,1],[-5,0],[LB,SHORT_INT])",
	"2 struct([2,1,1],[0,6,4],[UB,CHAR,LB])",
	"1 struct([1,1],[0,20],[struct([1,1,1],[0,4,8],[LB,INT,UB]),CHAR])",
	"2 contiguous(2,struct([1,1,1],[-2,0,3],[LB,SHORT,UB]))",
	// alignment padding (epsilon)
	"2 struct([1,1],[0,16],[LONG_DOUBLE,CHAR])",
	"1 struct([1,1],[0,2],[SHORT_INT,CHAR])",
	"2 struct([1,1],[0,8],[DOUBLE,CHAR])",
	"1 struct([2,1],[0,4],[SHORT,CHAR])",
	"2 struct([1,1],[-3,0],[CHAR,DOUBLE])",
	"1 struct([1,1],[0,1],[CHAR,contiguous(2,DOUBLE)])",
	"1 struct([1,1],[0,3],[resized(0,3,DOUBLE),CHAR])",
	"1 struct([1,0],[0,8],[CHAR,LONG_DOUBLE])",
	"1 struct([1,1],[0,12],[CHAR,LONG_DOUBLE_INT])",
	"1 struct([1,1],[0,4],[C_LONG_DOUBLE_COMPLEX,CHAR])",
	"1 struct([],[],[])",
	// types without data
	"1 contiguous(2,vector(3,0,2,INT))", // an old type of size 0 makes an empty type
	"1 hvector(2,0,5,vector(3,0,2,INT))",
	"1 indexed([1,0],[1,5],vector(3,0,2,INT))",
	"1 hindexed_block(0,[10,2],resized(-2,-4,INT))", // zero block length: bounds still count
	"2 struct([1,1],[0,1],[CHAR,indexed_block(0,[2],DOUBLE)])",
	"1 struct([1,1],[3,8],[vector(3,0,2,INT),CHAR])",
	"1 struct([1,1],[3,8],[vector(3,0,2,INT),vector(3,0,2,INT)])", // no data: empty
	"1 struct([1,1,1],[0,5,9],[LB,vector(2,0,3,INT),UB])",
	"1 struct([1,1],[0,1],[CHAR,contiguous(0,DOUBLE)])",
	"1 subarray([3],[1],[1],C,vector(3,0,2,INT))",
	"1 struct([1,1],[0,1],[CHAR,darray(4,3,[5],[BLOCK],[2],[4],C,DOUBLE)])",
	"1 resized(2,5,vector(3,0,2,INT))",
	// all blocks of one type: no padding
	"2 struct([1,2],[0,5],[INT,INT])",
	"2 struct([1,1,1],[0,8,3],[CHAR,LB,CHAR])",
	"2 struct([1,1],[0,9],[DOUBLE_INT,DOUBLE_INT])",
	"1 struct([1,1],[0,1],[INT,UNSIGNED])", // MPICH: integers of one size are one type
	"1 struct([1,1,1],[0,9,20],[LONG,AINT,UINT64_T])",
	"1 struct([1,1],[0,1],[SHORT,UINT16_T])",
	"1 struct([1,1],[0,1],[INT,WCHAR])",
	"1 struct([1,1],[0,1],[DOUBLE,LONG])",
	"1 struct([1,1],[0,1],[INT,dup(INT)])", // MPICH: a copy of INT in place is INT
	"1 struct([1,1],[0,1],[INT,vector(1,1,5,UNSIGNED)])",
	"1 struct([1,1],[0,1],[INT,indexed([1],[0],INT)])",
	"1 struct([1,1],[0,1],[INT,indexed([1,0],[0,3],INT)])",
	"1 struct([1,1],[0,1],[INT,resized(0,4,INT)])",
	"1 struct([1,1],[0,1],[INT,resized(0,8,INT)])",
	"1 struct([1,1],[0,1],[INT,struct([1],[0],[INT])])",
	"1 struct([1,1],[0,1],[INT,subarray([1],[1],[0],C,INT)])",
	"1 struct([1,1],[0,1],[INT,darray(1,0,[1],[BLOCK],[DFLT],[1],C,INT)])",
	"1 struct([1,1],[0,1],[DOUBLE_INT,dup(DOUBLE_INT)])",
	// Fortran types: MPICH makes types of one representation one type
	"1 struct([1,1],[0,1],[INTEGER,INT])",
	"1 struct([1,1],[0,1],[LOGICAL,INTEGER4])",
	"1 struct([1,1],[0,1],[INTEGER2,SHORT])",
	"1 struct([1,1],[0,1],[INTEGER8,LONG])",
	"1 struct([1,1],[0,1],[REAL,FLOAT])",
	"1 struct([1,1],[0,1],[REAL4,REAL])",
	"1 struct([1,1],[0,1],[DOUBLE_PRECISION,REAL8])",
	"1 struct([1,1],[0,1],[COMPLEX,2REAL])",
	"1 struct([1,1],[0,1],[C_FLOAT_COMPLEX,COMPLEX8])",
	"1 struct([1,1],[0,1],[DOUBLE_COMPLEX,2DOUBLE_PRECISION])",
	"1 struct([1,1],[0,1],[2INTEGER,2INT])",
	"1 struct([1,1],[0,1],[INTEGER,REAL])",
	"1 struct([1,1],[0,1],[REAL,INT])",
	"1 struct([1,1],[0,1],[DOUBLE_PRECISION,LONG])",
	"1 struct([1,1],[0,1],[COMPLEX,DOUBLE_PRECISION])",
	"1 struct([1,1],[0,1],[2REAL,2INTEGER])",
	// Fortran types: alignments, MPICH's none for REAL16 and COMPLEX32
	"1 struct([1,1],[0,8],[COMPLEX,CHAR])",
	"1 struct([1,1],[0,16],[DOUBLE_COMPLEX,CHARACTER])",
	"1 struct([1,1],[0,16],[REAL16,CHAR])",
	"1 struct([1,1],[0,16],[contiguous(1,REAL16),CHAR])",
	"1 struct([1,1],[0,32],[COMPLEX32,SHORT])",
	"1 struct([1,1],[0,16],[REAL16,INT])",
	"2 struct([1,1],[0,8],[2REAL,CHAR])",
	"2 struct([1,1],[0,16],[2DOUBLE_PRECISION,LOGICAL])",
	"1 hvector(2,1,12,2REAL)",
	"2 hvector(2,1,20,2DOUBLE_PRECISION)",
	"2 indexed([1,2],[3,0],2INTEGER)",
	"1 subarray([4,5],[2,3],[1,1],FORTRAN,DOUBLE_COMPLEX)",
	// subarray and darray
	"1 subarray([4,5],[2,3],[1,1],C,INT)",
	"1 subarray([4,5],[2,3],[1,2],FORTRAN,DOUBLE)",
	"2 subarray([3,2,4],[2,1,2],[1,1,2],C,SHORT_INT)",
	"2 subarray([3],[2],[1],C,subarray([4,4],[2,2],[1,1],FORTRAN,SHORT))",
	"1 subarray([3,3],[1,1],[2,0],FORTRAN,resized(-2,6,INT))",
	"1 darray(4,1,[8,6],[BLOCK,CYCLIC],[DFLT,DFLT],[2,2],C,INT)",
	"1 darray(6,5,[10,7],[CYCLIC,BLOCK],[2,4],[3,2],FORTRAN,CHAR)",
	"1 darray(2,1,[5,4],[NONE,BLOCK],[DFLT,DFLT],[1,2],C,DOUBLE)",
	"1 darray(4,3,[5],[BLOCK],[2],[4],C,INT)",     // empty block
	"1 darray(4,3,[5],[BLOCK],[DFLT],[4],C,INT)",  // empty block
	"1 darray(4,3,[2],[CYCLIC],[DFLT],[4],C,INT)", // empty block
	"2 darray(6,4,[4,5],[BLOCK,CYCLIC],[3,DFLT],[2,3],FORTRAN,SHORT_INT)",
	"2 vector(2,1,3,darray(2,0,[5],[CYCLIC],[2],[2],C,SHORT))",
	"1 darray(2,1,[5,4],[CYCLIC,NONE],[2,DFLT],[2,1],C,subarray([3],[2],[1],C,DOUBLE))",
	// dup, names
	"2 dup(vector(2,1,3,INT))",
	"1 dup(DOUBLE_INT)",
	"1 s_type=struct([1,2],[0,8],[INT,v=vector(2,1,2,CHAR)])",
	// bad lines
	"1 vector(2,1,INT)",
	"1 nosuch(1,INT)",
	"1 contiguous(-1,INT)",
}

// mpichDeviations are lines where MPICH 4.0.2 departs from the MPI
// standard and the model keeps the standard (see Struct and Darray). The
// test checks that MPICH still answers differently, so that neither side
// changes unnoticed.
var mpichDeviations = []string{
	"1 struct([1,1,1],[-4,0,8],[LB,LB,INT])",                              // MPI-4.1 §5.1.7: the lowest LB; MPICH: the last
	"1 struct([1,0],[3,8],[CHAR,UB])",                                     // a block of length 0 is no entry; MPICH: a marker
	"1 struct([1],[5],[UB])",                                              // §5.1.7: lb = ub = 5; MPICH: lb 0
	"1 struct([1,1],[8,-5],[contiguous(0,INT),LB])",                       // §5.1.7: lb = ub = -5; MPICH: ub 0
	"1 struct([1,1,1],[0,5,1],[INT,CHAR,LB])",                             // §5.1.2 epsilon pads ub - lb; MPICH pads the data
	"1 darray(2,1,[3],[CYCLIC],[2],[2],C,subarray([3],[2],[1],C,DOUBLE))", // §5.1.8 true lb 56; MPICH 48
	// §5.1.2: instance i of a contiguous type at i*extent; MPICH's pack
	// steps by 2 extents of the old type, here negative
	"2 contiguous(2,resized(0,-4,hindexed([1],[1],contiguous(2,CHAR))))",
}

// predefinedCases are lines for every predefined type the library has:
// on its own, twice in a row and in a contiguous.
func predefinedCases(have []Basic) []string {
	var lines []string
	for _, b := range have {
		lines = append(lines, "1 "+b.String(), "2 MPI_"+b.String())
		if !b.IsMarker() {
			lines = append(lines, "2 contiguous(3,"+strings.ToLower(b.String())+")")
		}
	}
	return lines
}

// optionalBasics are the predefined types an MPI library may lack: the
// optional Fortran types of MPI-4.1 Annex A.1.1 (MPICH 4.0.2 and Open MPI
// 4.1 have neither MPI_INTEGER16, MPI_REAL2 nor MPI_COMPLEX4 here), and the
// markers MPI_LB and MPI_UB, removed in MPI-3.0 (Open MPI 4 lacks them).
var optionalBasics = map[Basic]bool{
	Integer1: true, Integer2: true, Integer4: true, Integer8: true, Integer16: true,
	Real2: true, Real4: true, Real8: true, Real16: true,
	Complex4: true, Complex8: true, Complex16: true, Complex32: true,
	DoubleComplex: true, LB: true, UB: true,
}

// libraryBasics asks typediff which predefined types its library has.
// It fails the test when one that is not optional is missing, so that the
// pools shrink only by types an MPI may leave out.
func libraryBasics(t *testing.T, bin string) []Basic {
	t.Helper()
	var lines []string
	for b := Basic(1); b < numBasic; b++ {
		lines = append(lines, "1 "+b.String())
	}
	got := runTypediff(t, bin, lines)
	var have, lacks []Basic
	for i, ans := range got {
		b := Basic(i + 1)
		switch {
		case strings.Contains(ans, "unsupported type"):
			lacks = append(lacks, b)
			if !optionalBasics[b] {
				t.Errorf("the library lacks MPI_%s, which MPI-4.1 does not make optional", b)
			}
		default:
			have = append(have, b)
		}
	}
	t.Logf("the library lacks %v", lacks)
	return have
}

func TestMPICH(t *testing.T) {
	bin := buildTypediff(t)
	have := libraryBasics(t, bin)
	t.Run("handpicked", func(t *testing.T) {
		compareWithMPICH(t, bin, append(mpichCases, predefinedCases(have)...))
	})
	t.Run("deviations", func(t *testing.T) {
		got := runTypediff(t, bin, mpichDeviations)
		for i, line := range mpichDeviations {
			if want := predict(line); matchAnswer(got[i], want) || strings.HasPrefix(got[i], "ERR") {
				t.Errorf("%s: MPICH answers %q, the model %q: expected them to differ", line, got[i], want)
			}
		}
	})
	t.Run("random", func(t *testing.T) {
		g := newTypeGen(*typediffSeed)
		g.only(have)
		var lines []string
		for len(lines) < *typediffN {
			text := g.typ(3)
			ty, err := ParseExpr(text)
			if err != nil {
				t.Fatalf("generator wrote an invalid type: %v", err)
			}
			count := int64(g.between(1, 3))
			if lo, hi := touched(ty, count); hi-lo > maxDiffSpan || ty.TypeSize()*count > maxDiffSpan {
				continue
			}
			lines = append(lines, strconv.FormatInt(count, 10)+" "+text)
		}
		compareWithMPICH(t, bin, lines)
	})
}

// buildTypediff compiles testprogs/typediff with MPICH's compiler wrapper.
func buildTypediff(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("mpicc.mpich")
	if err != nil {
		// internal/testenv's rule, which this package's tests cannot
		// import (testenv needs mpilib, which needs this package)
		if v := os.Getenv(envvar.RequireMPI); v != "" && v != "0" {
			t.Fatalf("%s is set but mpicc.mpich is missing: %v", envvar.RequireMPI, err)
		}
		t.Skip("mpicc.mpich not found (apt-get install mpich libmpich-dev); set MPIDBG_REQUIRE_MPI=1 to fail instead")
	}
	bin := filepath.Join(t.TempDir(), "typediff")
	src := filepath.Join("..", "testprogs", "typediff", "typediff.c")
	if out, err := exec.Command(cc, "-O1", "-g", "-Wall", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", src, err, out)
	}
	return bin
}

// compareWithMPICH runs the lines through typediff and checks every
// answer against the model's prediction.
func compareWithMPICH(t *testing.T, bin string, lines []string) {
	t.Helper()
	got := runTypediff(t, bin, lines)
	bad := 0
	for i, line := range lines {
		want := predict(line)
		if matchAnswer(got[i], want) || strings.HasPrefix(want, "ERR") && strings.HasPrefix(got[i], "ERR") {
			continue
		}
		if bad++; bad > 20 {
			t.Fatalf("too many mismatches")
		}
		t.Errorf("%s\n%s", line, explainDiff(got[i], want))
	}
	t.Logf("%d types compared with MPICH", len(lines))
}

// runTypediff answers the lines with MPICH, one answer per line. When
// MPICH crashes on a line, that line's answer is "CRASH ..." and a new
// process answers the lines after it.
func runTypediff(t *testing.T, bin string, lines []string) []string {
	t.Helper()
	var answers []string
	for len(answers) < len(lines) {
		rest := lines[len(answers):]
		cmd := exec.Command(bin)
		cmd.Stdin = strings.NewReader(strings.Join(rest, "\n") + "\n")
		// a singleton: keep it from looking for a process manager it was
		// not started by
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "PMI_") && !strings.HasPrefix(kv, "HYDRA_") && !strings.HasPrefix(kv, "MPIR_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		got := strings.SplitAfter(string(out), "\n")
		got = got[:len(got)-1] // complete lines only
		for i := range got {
			got[i] = strings.TrimSuffix(got[i], "\n")
		}
		if len(got) > len(rest) || err == nil && len(got) != len(rest) {
			t.Fatalf("typediff answered %d lines for %d: %v\n%s", len(got), len(rest), err, stderr.Bytes())
		}
		answers = append(answers, got...)
		if err != nil && len(got) < len(rest) {
			msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
			answers = append(answers, "CRASH "+err.Error()+": "+msg)
		}
	}
	return answers
}

// matchAnswer compares typediff's answer with a prediction, in which ".."
// stands for a packed byte of any value.
func matchAnswer(got, want string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range len(want) {
		if got[i] != want[i] && want[i] != '.' {
			return false
		}
	}
	return true
}

// significant reports whether byte k of a value of type b is data. A long
// double is 10 bytes of x87 extended precision in 16; MPICH may pack it as
// a value, which leaves the 6 padding bytes undefined.
func significant(b Basic, k int64) bool {
	switch b {
	case LongDouble:
		return k < 10
	case CLongDoubleComplex:
		return k%16 < 10
	}
	return true
}

// predict is the model's answer to one "COUNT EXPR" line, in typediff's
// format, with ".." for packed bytes of undefined value.
func predict(line string) string { return predictWith(ParseExpr, line) }

// predictWith is predict with the types parse builds.
func predictWith(parse func(string) (*Type, error), line string) string {
	c, text, _ := strings.Cut(line, " ")
	count, err := strconv.ParseInt(c, 10, 64)
	if err != nil {
		return "ERR " + err.Error()
	}
	ty, err := parse(text)
	if err != nil {
		return "ERR " + err.Error()
	}
	s := fmt.Sprintf("%d %d %d %d %d", ty.TypeSize(), ty.LB(), ty.Extent(), ty.TrueLB(), ty.TrueExtent())
	if ty.TypeSize()*count == 0 {
		return s + " - -"
	}
	lo, _ := touched(ty, count)
	var a, b strings.Builder
	for disp, basic := range ty.TypeMap(count) {
		for k := range basic.Size() {
			if !significant(basic, k) {
				a.WriteString("..")
				b.WriteString("..")
				continue
			}
			o := disp + k - lo
			a.WriteString(hex.EncodeToString([]byte{byte(o)}))
			b.WriteString(hex.EncodeToString([]byte{byte(o >> 8)}))
		}
	}
	return s + " " + a.String() + " " + b.String()
}

// touched returns the bytes [lo, hi) the data of count instances occupy,
// computed from the bounds as typediff does.
func touched(ty *Type, count int64) (lo, hi int64) {
	lo, hi = ty.TrueLB(), ty.TrueUB()
	if e := ty.Extent(); e < 0 {
		lo += (count - 1) * e
	} else {
		hi += (count - 1) * e
	}
	return lo, hi
}

// explainDiff shows both answers field by field, and for packed bytes the
// first byte that differs.
func explainDiff(got, want string) string {
	names := []string{"size", "lb", "extent", "true_lb", "true_extent", "pack A", "pack B"}
	g, w := strings.Fields(got), strings.Fields(want)
	if len(g) != len(names) || len(w) != len(names) {
		return "  got:  " + got + "\n  want: " + want
	}
	var b strings.Builder
	for i, name := range names {
		mark := ""
		if !matchAnswer(g[i], w[i]) {
			mark = "  <-- differs"
			if i >= 5 {
				n := 0
				for n < len(g[i]) && n < len(w[i]) && (g[i][n] == w[i][n] || w[i][n] == '.') {
					n++
				}
				mark += fmt.Sprintf(" from packed byte %d", n/2)
			}
		}
		fmt.Fprintf(&b, "  %-11s got %s, want %s%s\n", name, g[i], w[i], mark)
	}
	return b.String()
}
