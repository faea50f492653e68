package datatype

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

func lyMust(t *Type, err error) *Type {
	if err != nil {
		panic(err)
	}
	return t
}

// lyExample is the hand-checked struct: blocklengths {1,5,7,2,1},
// displacements {-4,0,47,76,100}, types {LB,INT,CHAR,DOUBLE,UB}. Its data is
// five INTs at bytes 0-19, seven CHARs at 47-53 and two DOUBLEs at 76-91.
func lyExample() *Type {
	P := Predefined
	return lyMust(Struct([]int64{1, 5, 7, 2, 1}, []int64{-4, 0, 47, 76, 100},
		[]*Type{P(LB), P(Int), P(Char), P(Double), P(UB)}))
}

// lyCube returns the planes of a k×k×k array of doubles in C order, a[x][y][z]:
// x fixed is contiguous, y fixed is k rows of k, z fixed is k*k single
// doubles k apart.
func lyCube(k, x, y, z int64) (xPlane, yPlane, zPlane *Type) {
	D := Predefined(Double)
	sizes := []int64{k, k, k}
	xPlane = lyMust(Subarray(sizes, []int64{1, k, k}, []int64{x, 0, 0}, OrderC, D))
	yPlane = lyMust(Subarray(sizes, []int64{k, 1, k}, []int64{0, y, 0}, OrderC, D))
	zPlane = lyMust(Subarray(sizes, []int64{k, k, 1}, []int64{0, 0, z}, OrderC, D))
	return
}

// lyBytes is the brute force: how many type-map entries of count instances
// of t at addr cover each byte.
func lyBytes(t *Type, addr, count int64) map[int64]int {
	m := make(map[int64]int)
	for off, b := range t.TypeMap(count) {
		for i := int64(0); i < b.Size(); i++ {
			m[addr+off+i]++
		}
	}
	return m
}

func lyBlocksOf(m map[int64]int) []Block {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []Block
	for _, k := range keys {
		if n := len(out); n > 0 && out[n-1].End == k {
			out[n-1].End++
		} else {
			out = append(out, Block{k, k + 1})
		}
	}
	return out
}

func lyExpand(ss []Strided) []Block {
	var out []Block
	for _, s := range ss {
		var sh shape
		sh.off, sh.len, sh.n = s.Off, s.Len, len(s.Dims)
		copy(sh.d[:], s.Dims)
		sh.eachBlock(func(start int64) { out = append(out, Block{start, start + s.Len}) })
	}
	slices.SortFunc(out, func(a, b Block) int { return cmpInt(a.Start, b.Start) })
	return mergeBlocks(out)
}

func TestBlocksExample(t *testing.T) {
	got := fmt.Sprint(lyExample().Blocks(1))
	if want := "[(0,19) (47,53) (76,91)]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := lyExample().Blocks(1)[1], (Block{47, 54}); got != want || got.Last() != 53 {
		t.Errorf("got %#v, want %#v (last 53)", got, want)
	}
}

func TestBlocks(t *testing.T) {
	P := Predefined
	tests := []struct {
		name  string
		typ   *Type
		count int64
		want  string
	}{
		{"example twice: extent 104", lyExample(), 2, "[(0,19) (47,53) (76,91) (104,123) (151,157) (180,195)]"},
		{"vector(2,2,3,CHAR)", lyMust(Vector(2, 2, 3, P(Char))), 1, "[(0,1) (3,4)]"},
		// extent 5: the second instance's first block touches the first's last
		{"vector(2,2,3,CHAR) x2", lyMust(Vector(2, 2, 3, P(Char))), 2, "[(0,1) (3,6) (8,9)]"},
		{"negative stride", lyMust(Hvector(3, 1, -8, P(Int))), 1, "[(-16,-13) (-8,-5) (0,3)]"},
		{"contiguous(4,INT) x3", lyMust(Contiguous(4, P(Int))), 3, "[(0,47)]"},
		{"DOUBLE_INT x2: padded to 16", P(DoubleInt), 2, "[(0,11) (16,27)]"},
		{"empty", lyMust(Contiguous(0, P(Int))), 5, "[]"},
		{"markers only", lyMust(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{P(LB), P(UB)})), 3, "[]"},
		{"overlapping entries merge", lyMust(Vector(2, 5, 3, P(Char))), 1, "[(0,7)]"},
	}
	for _, tc := range tests {
		if got := fmt.Sprint(tc.typ.Blocks(tc.count)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestStrided(t *testing.T) {
	P := Predefined
	D := P(Double)
	const k = 1024
	x, y, z := lyCube(k, 7, 3, 5)
	col := lyMust(Vector(4, 1, 4, D))
	pair := lyMust(Struct([]int64{1, 1}, []int64{0, 16}, []*Type{D, D})) // two doubles, extent 24
	pair32 := lyMust(Resized(0, 32, pair))
	tests := []struct {
		name  string
		typ   *Type
		count int64
		want  string
	}{
		{"z-plane as vector", lyMust(Vector(k*k, 1, k, D)), 1, "[0+8 x1048576/8192]"},
		{"z-plane as subarray", z, 1, "[40+8 x1048576/8192]"},
		{"y-plane", y, 1, "[24576+8192 x1024/8388608]"},
		{"x-plane", x, 1, "[58720256+8388608]"},
		{"two y-planes of two arrays: the count continues the rows", y, 2, "[24576+8192 x2048/8388608]"},
		{"vector count: a new outer dimension", lyMust(Vector(k*k, 1, k, D)), 3, "[0+8 x1048576/8192 x3/8589926408]"},
		{"contiguous count merges", lyMust(Contiguous(4, P(Int))), 3, "[0+48]"},
		{"column resized to one double, 4 of them: the matrix", lyMust(Resized(0, 8, col)), 4, "[0+128]"},
		{"column resized, 3 of them", lyMust(Resized(0, 8, col)), 3, "[0+24 x4/32]"},
		{"fields of a struct in an array merge", lyMust(Contiguous(5, pair32)), 1, "[0+8 x10/16]"},
		{"unless the extent breaks the rhythm", lyMust(Contiguous(5, pair)), 1, "[0+8 x2/16 x5/24]"},
		{"regular indexed becomes one block", lyMust(Indexed([]int64{2, 2, 2, 2}, []int64{0, 3, 6, 9}, P(Int))), 1, "[0+8 x4/12]"},
		{"example struct", lyExample(), 1, "[0+20 47+7 76+16]"},
		{"cyclic darray rows", lyMust(Darray(4, 1, []int64{19}, []Distrib{DistribCyclic}, []int64{2}, []int64{4}, OrderC, D)), 1,
			"[16+16 x2/64 144+8]"},
	}
	for _, tc := range tests {
		if got := fmt.Sprint(tc.typ.Strided(tc.count)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

// lyGen builds small random types from a byte string, so that fuzzers can
// steer it: every constructor, negative strides and displacements, resized
// types with extents below their true extents, markers.
type lyGen struct {
	data []byte
	pos  int
}

func (g *lyGen) int(n int) int64 {
	if g.pos >= len(g.data) || n <= 1 {
		return 0
	}
	g.pos++
	return int64(int(g.data[g.pos-1]) % n)
}

func (g *lyGen) between(lo, hi int64) int64 { return lo + g.int(int(hi-lo+1)) }

var lyBasics = []Basic{Char, Short, Int, Double, DoubleInt, FloatInt, ShortInt}

func (g *lyGen) typ(depth int) *Type {
	t := g.try(depth)
	if t == nil || t.NumElements() > 200 || t.TrueExtent() > 2000 || t.Extent() > 2000 || t.Extent() < -2000 {
		return Predefined(lyBasics[g.int(len(lyBasics))])
	}
	return t
}

func (g *lyGen) try(depth int) *Type {
	kind := g.int(14)
	if depth <= 0 {
		kind = 0
	}
	old := func() *Type { return g.typ(depth - 1) }
	var t *Type
	var err error
	switch kind {
	case 0:
		return Predefined(lyBasics[g.int(len(lyBasics))])
	case 1:
		t, err = Contiguous(g.int(4), old())
	case 2:
		t, err = Vector(g.int(4), g.int(4), g.between(-3, 4), old())
	case 3:
		t, err = Hvector(g.int(4), g.int(3), g.between(-16, 24), old())
	case 4, 5:
		n := g.between(1, 3)
		lens, disps := make([]int64, n), make([]int64, n)
		for i := range lens {
			lens[i] = g.int(3)
			disps[i] = g.between(-2, 5)
		}
		if kind == 4 {
			t, err = Indexed(lens, disps, old())
		} else {
			for i := range disps {
				disps[i] = g.between(-8, 24)
			}
			t, err = Hindexed(lens, disps, old())
		}
	case 6:
		n := g.between(1, 3)
		lens, disps, types := make([]int64, n), make([]int64, n), make([]*Type, n)
		for i := range lens {
			lens[i], disps[i] = g.int(3), g.between(-8, 24)
			switch g.int(6) {
			case 0:
				types[i] = Predefined(LB)
			case 1:
				types[i] = Predefined(UB)
			default:
				types[i] = old()
			}
		}
		t, err = Struct(lens, disps, types)
	case 7:
		t, err = Resized(g.between(-8, 8), g.between(-8, 24), old())
	case 8:
		t, err = Dup(old())
	case 9:
		t, err = IndexedBlock(g.int(3), []int64{g.between(-2, 4), g.between(-2, 4)}, old())
	case 10:
		sz := []int64{g.between(1, 4), g.between(1, 4)}
		sub := []int64{g.between(1, sz[0]), g.between(1, sz[1])}
		st := []int64{g.int(int(sz[0] - sub[0] + 1)), g.int(int(sz[1] - sub[1] + 1))}
		t, err = Subarray(sz, sub, st, Order(g.int(2)), old())
	case 11:
		t, err = HindexedBlock(g.int(3), []int64{g.between(-8, 24), g.between(-8, 24), g.between(-8, 24)}, old())
	case 12:
		gs := []int64{g.between(1, 7), g.between(1, 5)}
		ps := []int64{g.between(1, 3), 1}
		t, err = Darray(ps[0], g.int(int(ps[0])), gs, []Distrib{DistribCyclic, DistribNone},
			[]int64{g.between(1, 2), DargDefault}, ps, Order(g.int(2)), old())
	case 13:
		t, err = Resized(0, g.between(0, 4), old()) // extents below the true extent
	}
	if err != nil {
		return nil
	}
	return t
}

func lyRandomTypes(n int, seed uint64) []*Type {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]*Type, n)
	for i := range out {
		data := make([]byte, 64)
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		g := &lyGen{data: data}
		out[i] = g.typ(3)
	}
	return out
}

// TestBlocksAgainstTypeMap is the differential check: the compact block
// list and the expanded strided blocks equal the byte set of the type map,
// and the layout agrees with the type's true bounds and size.
func TestBlocksAgainstTypeMap(t *testing.T) {
	for i, typ := range lyRandomTypes(3000, 1) {
		for _, count := range []int64{1, 2, 3} {
			m := lyBytes(typ, 0, count)
			want := lyBlocksOf(m)
			if got := typ.Blocks(count); !slices.Equal(got, want) {
				t.Fatalf("type %d %s count %d: Blocks got %v, want %v", i, typ.Label(), count, got, want)
			}
			if got := lyExpand(typ.Strided(count)); !slices.Equal(got, want) {
				t.Fatalf("type %d count %d: Strided %v expands to %v, want %v", i, count, typ.Strided(count), got, want)
			}
		}
		// The type's true bounds follow MPICH and may be wider than the
		// data (they derive from lb and ub); Buffer.Bounds relies on them
		// holding the data.
		l := layoutOf(typ)
		if typ.TypeSize() > 0 && (l.lo < typ.TrueLB() || l.hi > typ.TrueUB()) {
			t.Errorf("type %d: layout bounds got [%d,%d), want within the true bounds [%d,%d)", i, l.lo, l.hi, typ.TrueLB(), typ.TrueUB())
		}
		if !l.overlap && l.nbytes != typ.TypeSize() {
			t.Errorf("type %d: layout holds %d bytes, want the size %d", i, l.nbytes, typ.TypeSize())
		}
	}
}

// TestLayoutIsStructural: huge regular types have a layout of one block and
// cost nothing to build.
func TestLayoutIsStructural(t *testing.T) {
	const k = 1 << 18 // a k³ array of doubles is 2^57 bytes: beyond expanding, within int64
	D := Predefined(Double)
	big := lyMust(Vector(k*k, 1, k, lyMust(Contiguous(1, D))))
	if got := big.Strided(1); len(got) != 1 || got[0].NumBlocks() != k*k {
		t.Errorf("got %v, want one block of %d", got, int64(k*k))
	}
	_, _, z := lyCube(k, 0, 0, 3)
	if got := len(z.Strided(1)); got != 1 {
		t.Errorf("z-plane of a 2^18 cube: got %d strided blocks, want 1", got)
	}
}

// TestLayoutConcurrent builds the layouts of shared types from many
// goroutines at once; run with -race.
func TestLayoutConcurrent(t *testing.T) {
	types := lyRandomTypes(200, 2)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, typ := range types {
				typ.SelfOverlaps()
				typ.SelfOverlapCount()
				Overlap(Buffer{0, typ, 2}, Buffer{16, typ, 1})
			}
		}()
	}
	wg.Wait()
}
