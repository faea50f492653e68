package pretty

import (
	"encoding/binary"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/golden"
	"github.com/muesli/termenv"
)

// The example struct of README.md, a vector of it, and a subarray.
const (
	sExpr   = "s_type=struct([1,5,7,2,1],[-4,0,47,76,100],[LB,INT,CHAR,DOUBLE,UB])"
	vExpr   = "v_type=vector(2,1,2," + sExpr + ")"
	subExpr = "sub=subarray([4,5],[2,3],[1,1],C,INT)"
)

func mustType(t *testing.T, expr string) *datatype.Type {
	t.Helper()
	ty, err := datatype.ParseExpr(expr)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// sBuffer is one s_type instance as memory starting at its true lb (0):
// ints 10..14, chars "abcdefg", doubles 1.5 and -2.25.
func sBuffer() []byte {
	mem := make([]byte, 100)
	for i := range 5 {
		binary.LittleEndian.PutUint32(mem[4*i:], uint32(10+i))
	}
	copy(mem[47:], "abcdefg")
	binary.LittleEndian.PutUint64(mem[76:], math.Float64bits(1.5))
	binary.LittleEndian.PutUint64(mem[84:], math.Float64bits(-2.25))
	return mem
}

func renderings(t *testing.T, r *Renderer) []struct {
	name string
	got  func() string
} {
	s, v, sub := mustType(t, sExpr), mustType(t, vExpr), mustType(t, subExpr)
	el, err := s.ElementAt(1, 10)
	if err != nil {
		t.Fatal(err)
	}
	return []struct {
		name string
		got  func() string
	}{
		{"MetaTree_struct", func() string { return r.MetaTree(s.MetaTree()) }},
		{"MetaTree_vector", func() string { return r.MetaTree(v.MetaTree()) }},
		{"MetaTree_subarray", func() string { return r.MetaTree(sub.MetaTree()) }},
		{"MetaTree_pair", func() string { return r.MetaTree(datatype.Predefined(datatype.DoubleInt).MetaTree()) }},
		{"ExpandedTree_struct", func() string { return r.ExpandedTree(s.ExpandedTree(1, 14)) }},
		{"ExpandedTree_vector", func() string { return r.ExpandedTree(v.ExpandedTree(2, 12)) }},
		{"ExpandedTree_subarray", func() string { return r.ExpandedTree(sub.ExpandedTree(1, 100)) }},
		{"TypeMap_struct", func() string { return r.TypeMap(s, 2, 20) }},
		{"TypeMap_vector", func() string { return r.TypeMap(v, 1, 100) }},
		{"TypeMap_subarray", func() string { return r.TypeMap(sub, 1, 4) }},
		{"TypeMap_empty", func() string { return r.TypeMap(datatype.Predefined(datatype.UB), 1, 4) }},
		{"Values_struct", func() string {
			vals, err := s.Decode(sBuffer(), s.TrueLB(), 1, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			return r.Values(vals)
		}},
		{"Values_negative_stride", func() string {
			ty := mustType(t, "vector(3,1,-2,INT)")
			mem := []byte{1, 0, 0, 0, 9, 9, 9, 9, 2, 0, 0, 0, 9, 9, 9, 9, 3, 0, 0, 0}
			vals, err := ty.Decode(mem, ty.TrueLB(), 1, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			return r.Values(vals)
		}},
		{"Blocks_vector", func() string { return r.Blocks(v.Blocks(2), 5) }},
		{"Blocks_empty", func() string { return r.Blocks(nil, 5) }},
		{"Strided_subarray", func() string { return r.Strided(sub.Strided(3)) }},
		{"Strided_empty", func() string { return r.Strided(nil) }},
		{"Summary_struct", func() string { return r.Summary(s, 1) }},
		{"Summary_vector_count", func() string { return r.Summary(v, 3) }},
		{"Element", func() string { return r.Element(el) }},
		{"Match_mismatch", func() string {
			m := datatype.MatchTypes(s, 1, mustType(t, "contiguous(15,INT)"), 1)
			se, _ := s.ElementAt(1, m.Element)
			return r.Match(m, &se, nil)
		}},
		{"Match_match", func() string {
			m := datatype.MatchTypes(s, 2, mustType(t, "contiguous(2,"+sExpr+")"), 1)
			return r.Match(m, nil, nil)
		}},
	}
}

func TestPlain(t *testing.T) {
	for _, tt := range renderings(t, Plain()) {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.got()
			if strings.Contains(got, "\x1b") {
				t.Errorf("plain rendering holds an escape sequence: %q", got)
			}
			golden.Check(t, got+"\n")
		})
	}
}

// TestColor pins the 16-colour rendering of a few views.
func TestColor(t *testing.T) {
	r := NewProfile(termenv.ANSI)
	for _, tt := range renderings(t, r) {
		switch tt.name {
		case "MetaTree_struct", "TypeMap_subarray", "Match_mismatch":
		default:
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			got := tt.got()
			if !strings.Contains(got, "\x1b[") {
				t.Errorf("ANSI rendering holds no escape sequence: %q", got)
			}
			golden.Check(t, got+"\n")
		})
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		color bool
		term  string
		want  termenv.Profile
	}{
		{false, "xterm-256color", termenv.Ascii},
		{true, "xterm-256color", termenv.ANSI256},
		{true, "xterm", termenv.ANSI},
		{true, "", termenv.ANSI},
	}
	for _, tt := range tests {
		t.Setenv(envvar.Term, tt.term)
		t.Setenv(envvar.ColorTerm, "")
		if got := New(os.Stdout, tt.color).Profile(); got != tt.want {
			t.Errorf("New(color %v) with TERM=%q: got profile %v, want %v", tt.color, tt.term, got, tt.want)
		}
	}
}

func TestPackageFunctionsArePlain(t *testing.T) {
	s := mustType(t, sExpr)
	tests := []struct{ got, want string }{
		{MetaTree(s.MetaTree()), Plain().MetaTree(s.MetaTree())},
		{ExpandedTree(s.ExpandedTree(1, 5)), Plain().ExpandedTree(s.ExpandedTree(1, 5))},
		{TypeMap(s, 1, 5), Plain().TypeMap(s, 1, 5)},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got\n%s\nwant\n%s", i, tt.got, tt.want)
		}
	}
}
