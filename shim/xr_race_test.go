package main

import (
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/datatype"
)

// TestRaceFit: what a wildcard receive would get from another candidate,
// the Go half of the message-race decision (xr_race.c): nothing when the
// message fits (equal signatures, a shorter message, MPI_PACKED by
// size), else the truncation or the first differing element.
func TestRaceFit(t *testing.T) {
	dbl, in := datatype.Predefined(datatype.Double), datatype.Predefined(datatype.Int)
	packed := datatype.Predefined(datatype.Packed)
	pair, err := datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{in, dbl})
	if err != nil {
		t.Fatal(err)
	}
	twoInts, err := datatype.Contiguous(2, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		send   *datatype.Type
		scount int64
		recv   *datatype.Type
		rcount int64
		ok     bool
		text   string
	}{
		{"same", dbl, 4, dbl, 4, true, ""},
		{"shorter", dbl, 2, dbl, 4, true, ""},
		{"struct prefix", in, 1, pair, 1, true, ""},
		{"longer", dbl, 6, dbl, 4, false, "it receives 6 MPI_DOUBLE into room for 4: truncation"},
		{"longer mixed", pair, 2, pair, 1, false, "it receives 4 elements into room for 2: truncation"},
		{"other type", dbl, 1, pair, 1, false, "its element 0 is MPI_DOUBLE where the receive's datatype has MPI_INT: type mismatch"},
		{"later element", pair, 1, twoInts, 1, false,
			"its element 1 is MPI_DOUBLE where the receive's datatype has MPI_INT: type mismatch"},
		{"packed fits", packed, 16, dbl, 2, true, ""},
		{"packed longer", packed, 24, dbl, 2, false, "it receives 24 bytes into room for 16: truncation"},
	} {
		fit, ok := raceFit(tc.send.Signature(), tc.scount, tc.recv.Signature(), tc.rcount)
		if ok != tc.ok || (!ok && fit.Text() != tc.text) {
			t.Errorf("%s: got %v %q, want %v %q", tc.name, ok, fit.Text(), tc.ok, tc.text)
		}
	}
	if (checks.RaceFit{}).Text() == "" {
		t.Errorf("RaceFit's zero value has no text")
	}
}
