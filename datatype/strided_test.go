package datatype

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name     string
		off, len int64
		dims     []Dim
		want     string // the block, or "bad at i" or "empty"
		overlap  bool
	}{
		{"nothing to do", 0, 8, []Dim{{4, 16}}, "0+8 x4/16", false},
		{"stride equal to length grows the block", 0, 8, []Dim{{4, 8}}, "0+32", false},
		{"count 1 goes", 0, 8, []Dim{{1, 100}, {3, 16}}, "0+8 x3/16", false},
		{"count 0 empties", 0, 8, []Dim{{0, 100}, {3, 16}}, "empty", false},
		{"negative stride turns around", 0, 8, []Dim{{3, -16}}, "-32+8 x3/16", false},
		{"sorted by stride", 0, 8, []Dim{{2, 1000}, {3, 16}}, "0+8 x3/16 x2/1000", false},
		{"continuing dimensions merge", 0, 8, []Dim{{4, 16}, {3, 64}}, "0+8 x12/16", false},
		{"merge after sorting (a transpose)", 0, 8, []Dim{{4, 32}, {4, 8}}, "0+128", false},
		{"stride 0 repeats", 0, 8, []Dim{{2, 0}}, "0+8", true},
		{"stride below length overlaps", 0, 8, []Dim{{3, 4}}, "0+16", true},
		{"interleaving: not nested", 0, 4, []Dim{{3, 8}, {2, 12}}, "bad at 1", false},
	}
	for _, tc := range tests {
		dims := clone(tc.dims)
		r := normalize(tc.off, tc.len, dims)
		var got string
		switch {
		case r.empty:
			got = "empty"
		case r.bad >= 0:
			got = fmt.Sprintf("bad at %d", r.bad)
		default:
			got = Strided{r.off, r.len, dims[:r.n]}.String()
		}
		if got != tc.want || r.overlap != tc.overlap {
			t.Errorf("%s: got %s (overlap %v), want %s (overlap %v)", tc.name, got, r.overlap, tc.want, tc.overlap)
		}
	}
}

// lyShape draws a random normalised shape; like, when given, lends its
// strides (all or an inner part), to reach the equal-stride and prefix
// paths of firstCommon.
func lyShape(r *rand.Rand, like *shape) (shape, bool) {
	var s shape
	s.off, s.len = r.Int64N(40)-10, 1+r.Int64N(6)
	n := r.IntN(4)
	var dims []Dim
	for i := 0; i < n; i++ {
		dims = append(dims, Dim{1 + r.Int64N(4), r.Int64N(41) - 20})
	}
	if like != nil && r.IntN(2) == 0 {
		dims = dims[:0]
		for i := 0; i < like.n-r.IntN(like.n+1); i++ {
			dims = append(dims, Dim{1 + r.Int64N(4), like.d[i].Stride})
		}
		s.len = 1 + r.Int64N(max(like.len, 1))
	}
	res := normalize(s.off, s.len, dims)
	if res.bad >= 0 || res.empty || res.overlap {
		return s, false
	}
	s.off, s.len, s.n = res.off, res.len, res.n
	copy(s.d[:], dims[:res.n])
	return s, true
}

func lyShapeBytes(s *shape) map[int64]int {
	m := make(map[int64]int)
	s.eachBlock(func(start int64) {
		for i := start; i < start+s.len; i++ {
			m[i]++
		}
	})
	return m
}

// TestFirstCommon checks the intersection of two strided blocks, and of a
// block with an interval, against their byte sets.
func TestFirstCommon(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	paths := map[string]int{}
	for i := 0; i < 200000; i++ {
		a, ok := lyShape(r, nil)
		if !ok {
			continue
		}
		b, ok := lyShape(r, &a)
		if !ok {
			continue
		}
		ma, mb := lyShapeBytes(&a), lyShapeBytes(&b)
		for k := range ma {
			if ma[k] > 1 {
				t.Fatalf("normalised shape %v overlaps itself", a.strided())
			}
		}
		want := lyBruteOverlap(ma, mb)
		got, ok := firstCommon(&a, &b)
		if !ok {
			got = -1
		}
		if got != want {
			t.Fatalf("firstCommon(%v, %v) got %d, want %d", a.strided(), b.strided(), got, want)
		}
		switch {
		case a.n == 0 || b.n == 0:
			paths["interval"]++
		case a.n == b.n && sameStrides(&a, &b, a.n):
			paths["equal strides"]++
		default:
			paths["walk"]++
		}
		lo, hi := r.Int64N(60)-20, r.Int64N(60)-20
		want = -1
		for x := lo; x < hi; x++ {
			if ma[x] > 0 {
				want = x
				break
			}
		}
		if got, ok = a.firstIn(lo, hi); !ok {
			got = -1
		}
		if got != want {
			t.Fatalf("%v.firstIn(%d, %d) got %d, want %d", a.strided(), lo, hi, got, want)
		}
	}
	for _, p := range []string{"interval", "equal strides", "walk"} {
		if paths[p] < 1000 {
			t.Errorf("path %q taken %d times, want at least 1000", p, paths[p])
		}
	}
}
