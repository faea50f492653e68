package datatype

import (
	"testing"
)

func TestOverlap(t *testing.T) {
	P := Predefined
	D, I := P(Double), P(Int)
	const k = 4096
	const base = 1 << 40
	x, y, z := lyCube(k, 7, 3, 5)
	_, _, z6 := lyCube(k, 0, 0, 6)
	zVec := lyMust(Vector(k*k, 1, k, D))
	v223 := lyMust(Vector(2, 2, 3, P(Char))) // bytes 0-1, 3-4; extent 5
	// bytes 0, 5-6, 11, 14-16, 22, 27-28; extent 29: too many blocks to fold
	// a count into, so buffers are taken instance by instance
	irr := lyMust(Hindexed([]int64{1, 2, 1, 3, 1, 2}, []int64{0, 5, 11, 14, 22, 27}, P(Char)))
	tests := []struct {
		name string
		a, b Buffer
		at   int64 // want the lowest common byte; -1 for none
	}{
		{"two z-planes", Buffer{base, z, 1}, Buffer{base, z6, 1}, -1},
		{"a z-plane and itself", Buffer{base, z, 1}, Buffer{base, z, 1}, base + 5*8},
		{"z-planes as vectors, 5 doubles apart", Buffer{base + 5*8, zVec, 1}, Buffer{base + 6*8, zVec, 1}, -1},
		{"z-plane vector moved by a whole row", Buffer{base, zVec, 1}, Buffer{base + k*8, zVec, 1}, base + k*8},
		{"x-plane meets z-plane at a[7][0][5]", Buffer{base, x, 1}, Buffer{base, z, 1}, base + 7*k*k*8 + 5*8},
		{"y-plane meets z-plane at a[0][3][5]", Buffer{base, y, 1}, Buffer{base, z, 1}, base + 3*k*8 + 5*8},
		{"x-plane meets y-plane at a[7][3][0]", Buffer{base, y, 1}, Buffer{base, x, 1}, base + 7*k*k*8 + 3*k*8},
		{"adjacent ints", Buffer{100, I, 1}, Buffer{104, I, 3}, -1},
		{"one byte of overlap", Buffer{100, I, 2}, Buffer{107, I, 1}, 107},
		{"interleaved combs", Buffer{0, v223, 1}, Buffer{2, P(Char), 1}, -1},
		{"combs: the second instance reaches", Buffer{0, v223, 2}, Buffer{7, P(Char), 1}, -1},
		{"combs: byte 8 is instance 1's", Buffer{0, v223, 2}, Buffer{8, P(Char), 1}, 8},
		{"empty buffer", Buffer{0, I, 0}, Buffer{0, I, 1}, -1},
		{"markers hold no data", Buffer{0, lyMust(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{P(LB), P(UB)})), 4}, Buffer{0, I, 8}, -1},
		{"example struct against a double at 48", Buffer{0, lyExample(), 1}, Buffer{48, D, 1}, 48},
		{"example struct: the gap 20-46", Buffer{0, lyExample(), 1}, Buffer{20, lyMust(Contiguous(27, P(Char))), 1}, -1},
		{"irregular x3: byte 16 of instance 2", Buffer{0, irr, 3}, Buffer{58 + 16, P(Char), 1}, 74},
		{"irregular x3: gap at 13 of instance 2", Buffer{0, irr, 3}, Buffer{58 + 13, P(Char), 1}, -1},
		{"irregular x3, moved by 1", Buffer{0, irr, 3}, Buffer{1, irr, 3}, 6},
		{"irregular x3, moved by 3", Buffer{0, irr, 3}, Buffer{3, irr, 3}, 14},
		{"example struct x3 against a double at 250", Buffer{0, lyExample(), 3}, Buffer{250, D, 1}, 255},
	}
	for _, tc := range tests {
		for _, swap := range []bool{false, true} {
			a, b := tc.a, tc.b
			if swap {
				a, b = b, a
			}
			at, ok := Overlap(a, b)
			if !ok {
				at = -1
			}
			if at != tc.at {
				t.Errorf("%s (swapped %v): got %d, want %d", tc.name, swap, at, tc.at)
			}
		}
	}
}

func TestSelfOverlap(t *testing.T) {
	P := Predefined
	D, I, C := P(Double), P(Int), P(Char)
	col := lyMust(Vector(4, 1, 4, D))
	tests := []struct {
		name     string
		typ      *Type
		overlaps bool
		count    int64
	}{
		{"DOUBLE", D, false, 0},
		{"vector(2,5,3,CHAR): blocks 0-4 and 3-7", lyMust(Vector(2, 5, 3, C)), true, 1},
		{"vector(2,2,3,CHAR)", lyMust(Vector(2, 2, 3, C)), false, 0},
		{"stride 0", lyMust(Hvector(2, 1, 0, I)), true, 1},
		{"struct with ints at 0 and 2", lyMust(Struct([]int64{1, 1}, []int64{0, 2}, []*Type{I, I})), true, 1},
		{"indexed, one displacement twice", lyMust(Indexed([]int64{1, 1}, []int64{0, 0}, I)), true, 1},
		{"resized to half its data", lyMust(Resized(0, 4, lyMust(Contiguous(2, I)))), false, 2},
		{"resized to extent 0", lyMust(Resized(0, 0, I)), false, 2},
		{"negative extent, no overlap", lyMust(Resized(0, -4, I)), false, 0},
		{"negative extent below the size", lyMust(Resized(0, -2, I)), false, 2},
		// count 4 of the resized column is the 4×4 matrix, transposed; a
		// fifth column lands on the first one's second element
		{"column resized to one double", lyMust(Resized(0, 8, col)), false, 5},
		{"empty", lyMust(Contiguous(0, I)), false, 0},
		{"two bytes 10 apart, extent 3", lyMust(Resized(0, 3, lyMust(Hindexed([]int64{1, 1}, []int64{0, 10}, C)))), false, 0},
		{"two bytes 9 apart, extent 3", lyMust(Resized(0, 3, lyMust(Hindexed([]int64{1, 1}, []int64{0, 9}, C)))), false, 4},
	}
	for _, tc := range tests {
		if got := tc.typ.SelfOverlaps(); got != tc.overlaps {
			t.Errorf("%s: SelfOverlaps got %v, want %v", tc.name, got, tc.overlaps)
		}
		if got := tc.typ.SelfOverlapCount(); got != tc.count {
			t.Errorf("%s: SelfOverlapCount got %d, want %d", tc.name, got, tc.count)
		}
		if tc.count > 1 && (Buffer{0, tc.typ, tc.count - 1}.SelfOverlaps() || !(Buffer{0, tc.typ, tc.count}.SelfOverlaps())) {
			t.Errorf("%s: Buffer.SelfOverlaps must turn true at count %d", tc.name, tc.count)
		}
	}
}

// lyBruteOverlap is the lowest byte in both byte maps, or -1.
func lyBruteOverlap(a, b map[int64]int) int64 {
	best := int64(-1)
	found := false
	for k := range a {
		if b[k] > 0 && (!found || k < best) {
			best, found = k, true
		}
	}
	if !found {
		return -1
	}
	return best
}

func lyFuzzSeeds(f *testing.F) {
	f.Add([]byte{2, 3, 2, 2, 0, 2}, int64(0), int64(3), int64(1), int64(2))
	f.Add([]byte{6, 3, 1, 5, 2, 9, 7, 1, 0, 13, 3, 3}, int64(5), int64(-9), int64(3), int64(2))
	f.Add([]byte{7, 0, 3, 4, 1, 10, 2, 3, 1, 2, 1}, int64(1), int64(40), int64(4), int64(1))
	f.Add([]byte{13, 1, 2, 3, 2, 1, 0, 2, 4, 8, 12, 0, 1}, int64(0), int64(0), int64(2), int64(3))
	for i := byte(0); i < 14; i++ {
		f.Add([]byte{i, 2, 3, 1, i, 4, 5, 2, 1, 3}, int64(i), int64(2*i), int64(2), int64(3))
	}
}

// FuzzOverlap checks Overlap on two generated buffers against the brute
// force: the byte sets of their type maps.
func FuzzOverlap(f *testing.F) {
	lyFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, addrA, addrB, countA, countB int64) {
		g := &lyGen{data: data}
		ta, tb := g.typ(3), g.typ(3)
		addrA, addrB = addrA%300, addrB%300
		countA, countB = lyCount(countA), lyCount(countB)
		a, b := Buffer{addrA, ta, countA}, Buffer{addrB, tb, countB}
		want := lyBruteOverlap(lyBytes(ta, addrA, countA), lyBytes(tb, addrB, countB))
		at, ok := Overlap(a, b)
		if !ok {
			at = -1
		}
		if at != want {
			t.Fatalf("Overlap(%s x%d at %d, %s x%d at %d) got %d, want %d", ta.Expr(), countA, addrA, tb.Expr(), countB, addrB, at, want)
		}
	})
}

func lyCount(c int64) int64 { return min(max(c, -c)%6, 5) }

// FuzzSelfOverlap checks SelfOverlaps and SelfOverlapCount on generated
// types against the brute force: entry multiplicities per byte.
func FuzzSelfOverlap(f *testing.F) {
	lyFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, _, _, _, _ int64) {
		g := &lyGen{data: data}
		typ := g.typ(3)
		one := lyBytes(typ, 0, 1)
		want := false
		for _, n := range one {
			want = want || n > 1
		}
		if got := typ.SelfOverlaps(); got != want {
			t.Fatalf("%s: SelfOverlaps got %v, want %v", typ.Expr(), got, want)
		}
		// Smallest count: instance 0 meets instance k for the smallest k.
		wantCount := int64(0)
		switch e := max(typ.Extent(), -typ.Extent()); {
		case len(one) == 0:
		case want:
			wantCount = 1
		case e == 0:
			wantCount = 2
		default:
			for k := int64(1); k*e < typ.TrueExtent(); k++ {
				for b := range one {
					if one[b+k*e] > 0 {
						wantCount = k + 1
						break
					}
				}
				if wantCount > 0 {
					break
				}
			}
		}
		if got := typ.SelfOverlapCount(); got != wantCount {
			t.Fatalf("%s: SelfOverlapCount got %d, want %d", typ.Expr(), got, wantCount)
		}
	})
}
