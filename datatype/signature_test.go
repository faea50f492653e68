package datatype

import (
	"math/rand"
	"testing"
)

// mustType panics on a constructor error: test inputs are valid by design.
func mustType(ty *Type, err error) *Type {
	if err != nil {
		panic(err)
	}
	return ty
}

// P is short for Predefined in tests.
var P = Predefined

// exampleStruct is the hand-checked struct of README.md:
// blocklengths {1,5,7,2,1}, displacements {-4,0,47,76,100},
// types {LB,INT,CHAR,DOUBLE,UB}.
func exampleStruct() *Type {
	s := mustType(Struct([]int64{1, 5, 7, 2, 1}, []int64{-4, 0, 47, 76, 100},
		[]*Type{P(LB), P(Int), P(Char), P(Double), P(UB)}))
	return s.SetName("s_type")
}

func TestSignatureForms(t *testing.T) {
	pair := mustType(Struct([]int64{1, 3}, []int64{0, 8}, []*Type{P(Int), P(Double)}))
	vec := mustType(Vector(4, 2, 3, pair))
	tests := []struct {
		name string
		ty   *Type
		want string
	}{
		{"basic", P(Double), "DOUBLE"},
		{"pair type", P(DoubleInt), "DOUBLE INT"},
		{"example struct", exampleStruct(), "INT*5 CHAR*7 DOUBLE*2"},
		{"struct array", mustType(Contiguous(100, pair)), "(INT DOUBLE*3)*100"},
		{"vector of struct", vec, "(INT DOUBLE*3)*8"},
		{"runs merge", mustType(Vector(3, 2, 5, P(Int))), "INT*6"},
		{"primitive root", mustType(Contiguous(3, mustType(Contiguous(2, pair)))), "(INT DOUBLE*3)*6"},
		{"absorb copy", mustType(Struct([]int64{2, 1}, []int64{0, 100}, []*Type{pair, pair})), "(INT DOUBLE*3)*3"},
		{"markers only", mustType(Struct([]int64{1}, []int64{4}, []*Type{P(UB)})), ""},
		{"empty", mustType(Contiguous(0, P(Int))), ""},
		{"subarray", mustType(Subarray([]int64{4, 4}, []int64{2, 3}, []int64{1, 1}, OrderC, pair)), "(INT DOUBLE*3)*6"},
	}
	for _, tt := range tests {
		if got := tt.ty.Signature().String(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestMatchTypes(t *testing.T) {
	ab := mustType(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{P(Double), P(Int)}))
	aa := mustType(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{P(Double), P(Double)}))
	tests := []struct {
		name      string
		send      *Type
		sendCount int64
		recv      *Type
		recvCount int64
		want      MatchResult
	}{
		{"equal", P(Int), 4, mustType(Contiguous(4, P(Int))), 1, MatchResult{Kind: Match, Element: 4, Byte: 16}},
		{"layout differs, signature equal", mustType(Vector(2, 2, 5, P(Int))), 1, P(Int), 4, MatchResult{Kind: Match, Element: 4, Byte: 16}},
		{"partial receive", P(Int), 2, P(Int), 3, MatchResult{Kind: Prefix, Element: 2, Byte: 8}},
		{"truncation", P(Int), 3, P(Int), 2, MatchResult{Kind: Truncated, Element: 2, Byte: 8}},
		{"struct vs pair type", ab, 3, P(DoubleInt), 3, MatchResult{Kind: Match, Element: 6, Byte: 36}},
		{"mismatch in second instance", ab, 2, aa, 2, MatchResult{Kind: Mismatch, Element: 1, Byte: 8, Send: Int, Recv: Double}},
		{"byte vs char", P(Byte), 4, P(Char), 4, MatchResult{Kind: Mismatch, Send: Byte, Recv: Char}},
		{"packed sender", P(Packed), 12, ab, 1, MatchResult{Kind: Match}},
		{"packed receiver, short", ab, 1, P(Packed), 100, MatchResult{Kind: Prefix, Byte: 12}},
		{"packed receiver, too small", ab, 2, P(Packed), 20, MatchResult{Kind: Truncated, Byte: 20}},
		{"empty send", P(Int), 0, P(Int), 1, MatchResult{Kind: Prefix}},
		{"both empty", P(Int), 0, P(Double), 0, MatchResult{Kind: Match}},
	}
	for _, tt := range tests {
		if got := MatchTypes(tt.send, tt.sendCount, tt.recv, tt.recvCount); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestMatchSkipsRepetitions: two struct arrays of a billion elements
// compare without expansion (this would take minutes element by element).
func TestMatchSkipsRepetitions(t *testing.T) {
	pair := mustType(Struct([]int64{1, 3}, []int64{0, 8}, []*Type{P(Int), P(Double)}))
	big := mustType(Contiguous(1<<30, pair))
	got := MatchTypes(big, 2, pair, 1<<31)
	if got.Kind != Match || got.Element != 4<<31 {
		t.Errorf("got %+v, want a match of %d elements", got, int64(4)<<31)
	}
	other := mustType(Struct([]int64{1, 3}, []int64{0, 8}, []*Type{P(Int), P(Double)}))
	got = MatchTypes(big, 1, mustType(Contiguous(1<<30, other)), 1)
	if got.Kind != Match {
		t.Errorf("equal bodies from different handles: got %+v", got)
	}
}

// naiveSig expands the type map of count instances into basic types.
func naiveSig(ty *Type, count int64) []Basic {
	var out []Basic
	for _, b := range ty.TypeMap(count) {
		out = append(out, b)
	}
	return out
}

func naiveMatch(a, b []Basic) MatchResult {
	var bytes int64
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return MatchResult{Kind: Mismatch, Element: int64(i), Byte: bytes, Send: a[i], Recv: b[i]}
		}
		bytes += a[i].Size()
	}
	n := int64(min(len(a), len(b)))
	switch {
	case len(a) == len(b):
		return MatchResult{Kind: Match, Element: n, Byte: bytes}
	case len(a) < len(b):
		return MatchResult{Kind: Prefix, Element: n, Byte: bytes}
	}
	return MatchResult{Kind: Truncated, Element: n, Byte: bytes}
}

// sigTestType makes a random small type over few basic types, so that
// random pairs often share long prefixes.
func sigTestType(r *rand.Rand, depth int) *Type {
	leaves := []Basic{Int, Int, Double, Char, DoubleInt}
	if depth == 0 || r.Intn(4) == 0 {
		return P(leaves[r.Intn(len(leaves))])
	}
	old := sigTestType(r, depth-1)
	n := int64(r.Intn(4))
	var ty *Type
	var err error
	switch r.Intn(5) {
	case 0:
		ty, err = Contiguous(n, old)
	case 1:
		ty, err = Vector(n, int64(r.Intn(3)), int64(r.Intn(5)-1), old)
	case 2:
		ty, err = Indexed([]int64{n, int64(r.Intn(3))}, []int64{0, 7}, old)
	case 3:
		other := sigTestType(r, depth-1)
		ty, err = Struct([]int64{n, int64(r.Intn(3)), 1}, []int64{0, 64, 128}, []*Type{old, other, old})
	default:
		ty, err = Resized(0, 3, old)
	}
	if err != nil {
		panic(err)
	}
	return ty
}

func FuzzMatchSig(f *testing.F) {
	for _, s := range []int64{1, 2, 3, 42, 1000} {
		f.Add(s, uint8(2), uint8(3))
	}
	f.Fuzz(func(t *testing.T, seed int64, c1, c2 uint8) {
		r := rand.New(rand.NewSource(seed))
		a, b := sigTestType(r, 3), sigTestType(r, 3)
		if r.Intn(3) == 0 {
			b = a
		}
		ca, cb := int64(c1%5), int64(c2%5)
		na, nb := naiveSig(a, ca), naiveSig(b, cb)
		if len(na) > 1<<16 || len(nb) > 1<<16 {
			return
		}
		want := naiveMatch(na, nb)
		if got := MatchSig(a.Signature(), ca, b.Signature(), cb); got != want {
			t.Fatalf("%d x %s vs %d x %s: got %+v, want %+v", ca, a.Signature(), cb, b.Signature(), got, want)
		}
		var runs []Run
		for _, x := range na {
			if n := len(runs); n > 0 && runs[n-1].Basic == x {
				runs[n-1].Count++
			} else {
				runs = append(runs, Run{x, 1})
			}
		}
		var got []Run
		if ca > 0 {
			got = repeatSig(a.Signature(), ca).Runs()
		}
		if len(got) != len(runs) {
			t.Fatalf("%s: Runs got %v, want %v", a.Signature(), got, runs)
		}
		for i := range got {
			if got[i] != runs[i] {
				t.Fatalf("%s: Runs got %v, want %v", a.Signature(), got, runs)
			}
		}
		if m := MatchSig(Compressed(runs), 1, a.Signature(), ca); m.Kind != Match {
			t.Fatalf("compressed form of %s does not match it: %+v", a.Signature(), m)
		}
	})
}
