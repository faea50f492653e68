package datatype

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// typeGen writes random, valid constructor expressions with small counts,
// so that spans stay small. It never writes the cases where MPICH departs
// from the MPI standard and the model keeps the standard (see Struct and
// Darray, and mpichDeviations): more than one MPI_LB or MPI_UB marker in
// one struct, markers with block length zero, a struct without data with
// markers of one kind, an MPI_LB marker without MPI_UB marker where the
// struct is padded, and a CYCLIC darray dimension in which the rank owns a
// single partial block. It also steers clear of two faults of MPICH 4.0.2's
// pack engine: runs of several copies of a type of negative extent (which
// it may step through in the wrong direction) and struct blocks of a type
// without data (which can crash it).
type typeGen struct {
	r      *rand.Rand
	names  int
	basics []Basic // the predefined data types it picks from
}

func newTypeGen(seed uint64) *typeGen {
	g := &typeGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for b := Basic(1); b < numBasic; b++ {
		if !b.IsMarker() {
			g.basics = append(g.basics, b)
		}
	}
	return g
}

// only restricts the predefined types to those of have (the ones an MPI
// library has).
func (g *typeGen) only(have []Basic) {
	in := map[Basic]bool{}
	for _, b := range have {
		in[b] = true
	}
	g.basics = slices.DeleteFunc(g.basics, func(b Basic) bool { return !in[b] })
}

func (g *typeGen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func (g *typeGen) num(lo, hi int) string { return strconv.Itoa(g.between(lo, hi)) }

// nums writes a list of n numbers in [lo, hi].
func (g *typeGen) nums(n, lo, hi int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = g.num(lo, hi)
	}
	return "[" + strings.Join(s, ",") + "]"
}

func (g *typeGen) order() string { return []string{"C", "FORTRAN"}[g.r.IntN(2)] }

// basic picks a predefined data type (no markers), the common ones more
// often.
func (g *typeGen) basic() string {
	common := []string{"CHAR", "SHORT", "INT", "DOUBLE", "LONG_DOUBLE", "DOUBLE_INT", "SHORT_INT", "LONG_DOUBLE_INT"}
	if g.r.IntN(2) == 0 {
		return common[g.r.IntN(len(common))]
	}
	return g.basics[g.r.IntN(len(g.basics))].String()
}

// typ writes a type of at most depth nested constructors.
func (g *typeGen) typ(depth int) string {
	if depth == 0 || g.r.IntN(5) == 0 {
		return g.basic()
	}
	d := depth - 1
	kind := g.r.IntN(11)
	var s string
	switch kind {
	case 7:
		s = g.structExpr(d)
	case 8:
		s = g.subarray(d)
	case 9:
		s = g.darray(d)
	}
	if s == "" {
		// one old type: runs of several copies only of a type whose extent
		// is not negative (MPICH's pack steps through them wrongly, see
		// mpichDeviations)
		old := g.typ(d)
		maxBL := 3
		if g.negative(old) {
			maxBL = 1
		}
		bl := g.num(0, maxBL)
		switch kind {
		case 0:
			s = "contiguous(" + bl + "," + old + ")"
		case 1:
			s = "vector(" + g.num(0, 3) + "," + bl + "," + g.num(-4, 4) + "," + old + ")"
		case 2:
			s = "hvector(" + g.num(0, 3) + "," + bl + "," + g.num(-24, 24) + "," + old + ")"
		case 3:
			n := g.between(0, 3)
			s = "indexed(" + g.nums(n, 0, maxBL) + "," + g.nums(n, -4, 6) + "," + old + ")"
		case 4:
			n := g.between(0, 3)
			s = "hindexed(" + g.nums(n, 0, maxBL) + "," + g.nums(n, -24, 40) + "," + old + ")"
		case 5:
			s = "indexed_block(" + bl + "," + g.nums(g.between(0, 3), -4, 6) + "," + old + ")"
		case 6:
			s = "hindexed_block(" + bl + "," + g.nums(g.between(0, 3), -24, 40) + "," + old + ")"
		default:
			if g.r.IntN(4) == 0 {
				s = "dup(" + old + ")"
			} else {
				s = "resized(" + g.num(-8, 8) + "," + g.num(-16, 24) + "," + old + ")"
			}
		}
	}
	if g.r.IntN(8) == 0 {
		g.names++
		s = "t" + strconv.Itoa(g.names) + "=" + s
	}
	return s
}

// negative reports whether the type text describes has a negative extent.
func (g *typeGen) negative(text string) bool {
	t, err := ParseExpr(text)
	return err == nil && t.Extent() < 0
}

func genList(s []string) string { return "[" + strings.Join(s, ",") + "]" }

// structExpr writes a struct of up to four blocks with at most one MPI_LB
// and one MPI_UB marker, each of non-zero block length; sometimes every
// data block has the same predefined type. Blocks of a type without data
// have length 0: MPI_Pack of MPICH 4.0.2 can crash on others (SIGFPE,
// e.g. struct([1,1],[0,28],[DOUBLE,vector(2,0,1,resized(0,8,INT))])).
func (g *typeGen) structExpr(d int) string {
	n := g.between(1, 4)
	sameType := ""
	if g.r.IntN(4) == 0 {
		sameType = g.basic()
	}
	var lens, disps, types []string
	add := func(bl, t string) {
		lens, disps, types = append(lens, bl), append(disps, g.num(-16, 32)), append(types, t)
	}
	var lb, ub bool
	for range n {
		t, bl := sameType, g.num(0, 3)
		switch k := g.r.IntN(8); {
		case k == 0 && !lb:
			t, bl, lb = "LB", g.num(1, 2), true
		case k == 1 && !ub:
			t, bl, ub = "UB", g.num(1, 2), true
		case t == "":
			t = g.typ(d)
			if g.negative(t) {
				bl = g.num(0, 1)
			}
			if ty, _ := ParseExpr(t); ty.TypeSize() == 0 {
				bl = "0"
			}
		}
		add(bl, t)
	}
	if lb && !ub && sameType == "" {
		// the data may be padded: MPICH pads from the data's lb
		add(g.num(1, 2), "UB")
		ub = true
	}
	if lb != ub {
		// markers of one kind need data beside them
		t := sameType
		if t == "" {
			t = g.basic()
		}
		add(g.num(1, 3), t)
	}
	return "struct(" + genList(lens) + "," + genList(disps) + "," + genList(types) + ")"
}

func (g *typeGen) subarray(d int) string {
	n := g.between(1, 3)
	sizes, subs, starts := make([]int, n), make([]int, n), make([]int, n)
	for i := range sizes {
		sizes[i] = g.between(1, 4)
		subs[i] = g.between(1, sizes[i])
		starts[i] = g.between(0, sizes[i]-subs[i])
	}
	return "subarray(" + genInts(sizes) + "," + genInts(subs) + "," + genInts(starts) + "," + g.order() + "," + g.typ(d) + ")"
}

// darray writes a valid darray: NONE only on a dimension of one process,
// BLOCK dargs that cover the dimension, and sometimes blocks that leave
// this rank's part empty.
func (g *typeGen) darray(d int) string {
	n := g.between(1, 3)
	gsizes, psizes := make([]int, n), make([]int, n)
	distribs, dargs := make([]string, n), make([]string, n)
	size := 1
	for i := range gsizes {
		gsizes[i] = g.between(1, 6)
		psizes[i] = g.between(1, 3)
		size *= psizes[i]
	}
	rank := g.between(0, size-1)
	coord := make([]int, n) // row-major process grid
	for i, r := n-1, rank; i >= 0; i-- {
		coord[i], r = r%psizes[i], r/psizes[i]
	}
	for i := range gsizes {
		dargs[i] = "DFLT"
		switch k := g.r.IntN(3); {
		case k == 0 && psizes[i] == 1:
			distribs[i] = "NONE"
		case k == 1:
			distribs[i] = "CYCLIC"
			// not a single partial block: 0 < gsize - coord*darg < darg
			if b := g.between(1, 3); g.r.IntN(2) == 0 && !(gsizes[i]-coord[i]*b > 0 && gsizes[i]-coord[i]*b < b) {
				dargs[i] = strconv.Itoa(b)
			}
		default:
			distribs[i] = "BLOCK"
			if g.r.IntN(2) == 0 {
				least := (gsizes[i] + psizes[i] - 1) / psizes[i]
				dargs[i] = g.num(least, least+2)
			}
		}
	}
	return "darray(" + strconv.Itoa(size) + "," + strconv.Itoa(rank) + "," + genInts(gsizes) + "," + genList(distribs) + "," +
		genList(dargs) + "," + genInts(psizes) + "," + g.order() + "," + g.typ(d) + ")"
}

func genInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(s, ",") + "]"
}
