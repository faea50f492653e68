package datatype

import "testing"

// TestHugeCyclicDarray: a cyclic distribution is held in closed form, so a
// darray over 2^40 elements costs no memory per block, and lookups stay
// arithmetic.
func TestHugeCyclicDarray(t *testing.T) {
	d, err := Darray(4, 3, []int64{1 << 40}, []Distrib{DistribCyclic}, []int64{3}, []int64{4}, OrderC, P(Double))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.NumElements(), 3*(int64(1<<40)/12); got != want { // rank 3 owns 9..11 of each full period of 12
		t.Fatalf("elements: got %d, want %d", got, want)
	}
	el, err := d.ElementAt(1, 7) // run 2 (global 9+24*2=57..59), element 1
	if err != nil {
		t.Fatal(err)
	}
	if el.Offset != (9+2*12+1)*8 || el.Path.String() != "(DARRAY)[7](DOUBLE)" {
		t.Errorf("got offset %d path %s, want %d (DARRAY)[7](DOUBLE)", el.Offset, el.Path, (9+2*12+1)*8)
	}
	if s := d.Strided(1); len(s) != 1 {
		t.Errorf("rank 3 strided: got %v, want one lattice (its last run is whole)", s)
	}
	// 2^40 = 12k + 4: rank 1 owns 3..5 of each period and just index 3 of
	// the cut one
	d1, _ := Darray(4, 1, []int64{1 << 40}, []Distrib{DistribCyclic}, []int64{3}, []int64{4}, OrderC, P(Double))
	if s := d1.Strided(1); len(s) != 2 || s[1].Len != 8 {
		t.Errorf("rank 1 strided: got %v, want a lattice plus a last run of one double", s)
	}
}
