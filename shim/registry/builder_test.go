package registry

import (
	"testing"

	"github.com/mpidbg/mpidbg/datatype"
)

func TestBuilderForget(t *testing.T) {
	const intH, rowH, gridH = 0x4c000405, 0x8c000001, 0x8c000002
	recs := map[uint64]Type{
		rowH:  {Handle: rowH, Combiner: datatype.CombinerContiguous, Ints: []int32{3}, Types: []uint64{intH}, Serial: 1, Name: "row"},
		gridH: {Handle: gridH, Combiner: datatype.CombinerContiguous, Ints: []int32{2}, Types: []uint64{rowH}, Serial: 2},
	}
	b := &Builder{
		MPI:        MPICH,
		Predefined: map[uint64]datatype.Basic{intH: datatype.Int},
		Lookup:     func(h uint64) (Type, bool) { r, ok := recs[h]; return r, ok },
	}
	expr := func(h uint64) string {
		t.Helper()
		ty, err := b.Build(h)
		if err != nil {
			t.Fatalf("Build(%#x): %v", h, err)
		}
		return ty.Expr()
	}
	before := expr(gridH)
	if want := "contiguous(2,row=contiguous(3,INT))"; before != want {
		t.Fatalf("got %q, want %q", before, want)
	}
	r := recs[rowH]
	r.Name = "line"
	recs[rowH] = r
	if got := expr(gridH); got != before {
		t.Fatalf("before Forget: got %q, want the cached %q", got, before)
	}
	b.Forget(rowH)
	if got, want := expr(rowH), "line=contiguous(3,INT)"; got != want {
		t.Errorf("row after Forget: got %q, want %q", got, want)
	}
	if got, want := expr(gridH), "contiguous(2,line=contiguous(3,INT))"; got != want {
		t.Errorf("type built on it after Forget: got %q, want %q", got, want)
	}
	b.Forget(0x1234) // unknown: nothing happens
}
