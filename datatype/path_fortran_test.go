package datatype

import (
	"errors"
	"testing"
)

func TestFortranPath(t *testing.T) {
	halo := mustType(Vector(3, 2, 4, exampleStruct())).SetName("halo")
	el, err := halo.ElementAt(2, 84+14+10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := el.Path.Fortran(), "(2)halo(VECTOR)(1,2)%s_type(STRUCT)(3,6)(CHAR)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	real := Predefined(Real)
	el, _ = real.ElementAt(10, 3)
	if got := el.Path.Fortran(); got != "(4)(REAL)" {
		t.Errorf("REAL x10 element 3: got %q, want (4)(REAL)", got)
	}
}

// TestFortranSubarray: a face of a(10,20), a(3:5, 6:9), described in
// either storage order, is named by the array's own indices in Fortran
// order.
func TestFortranSubarray(t *testing.T) {
	real := Predefined(Real)
	fo := mustType(Subarray([]int64{10, 20}, []int64{3, 4}, []int64{2, 5}, OrderFortran, real)).SetName("face")
	co := mustType(Subarray([]int64{20, 10}, []int64{4, 3}, []int64{5, 2}, OrderC, real)).SetName("face")
	for _, ty := range []*Type{fo, co} {
		for i, want := range map[int64]string{0: "face(SUBARRAY)(3,6)(REAL)", 1: "face(SUBARRAY)(4,6)(REAL)", 4: "face(SUBARRAY)(4,7)(REAL)", 11: "face(SUBARRAY)(5,9)(REAL)"} {
			el, err := ty.ElementAt(1, i)
			if err != nil {
				t.Fatal(err)
			}
			if got := el.Path.Fortran(); got != want {
				t.Errorf("order %v element %d: got %q, want %q", ty.Order, i, got, want)
			}
			p, err := ParsePath(want)
			if err != nil {
				t.Fatal(err)
			}
			if back, err := ty.Resolve(1, p); err != nil || back.Index != i {
				t.Errorf("order %v: %s resolves to %+v %v, want element %d", ty.Order, want, back, err, i)
			}
		}
		checkPaths(t, ty, 2)
		for _, outside := range []string{"face(3,5)", "face(6,6)", "face(0,6)"} {
			p, err := ParsePath(outside)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ty.Resolve(1, p); !errors.Is(err, ErrPathMismatch) {
				t.Errorf("%s: got %v, want a mismatch: the face does not hold that element", outside, err)
			}
		}
	}
}

// TestFortranDarray: a cyclic distribution names the global array's
// element; every element of every rank's piece round-trips.
func TestFortranDarray(t *testing.T) {
	dbl := Predefined(DoublePrecision)
	for rank := int64(0); rank < 4; rank++ {
		ty := mustType(Darray(4, rank, []int64{9, 7}, []Distrib{DistribCyclic, DistribBlock}, []int64{2, DargDefault},
			[]int64{2, 2}, OrderFortran, dbl))
		checkPaths(t, ty, 1)
	}
	ty := mustType(Darray(4, 1, []int64{9, 7}, []Distrib{DistribCyclic, DistribBlock}, []int64{2, DargDefault},
		[]int64{2, 2}, OrderFortran, dbl))
	el, err := ty.ElementAt(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// rank 1 of the 2x2 grid is coordinate (0,1), the grid being in row
	// major order whatever the storage order (MPI-4.1 §5.1.4): rows 1:2,
	// 5:6 and 9 of the cyclic(2) dimension, columns 5:7 of the block one
	if got := el.Path.Fortran(); got != "(DARRAY)(1,5)(DOUBLE_PRECISION)" {
		t.Errorf("got %q", got)
	}
}

// TestFortranPairs: a pair type's name begins with a digit, and is a
// name in either form, not an index list.
func TestFortranPairs(t *testing.T) {
	for _, b := range []Basic{TwoInt, TwoInteger} {
		ty := Predefined(b)
		checkPaths(t, ty, 3)
		el, _ := ty.ElementAt(3, 3)
		for _, text := range []string{el.Path.String(), el.Path.Fortran()} {
			p, err := ParsePath(text)
			if err != nil {
				t.Errorf("%s: %v", text, err)
				continue
			}
			if back, err := ty.Resolve(3, p); err != nil || back.Index != 3 {
				t.Errorf("%s: resolves to %+v %v, want element 3", text, back, err)
			}
		}
	}
	for _, text := range []string{"(2INT)[1](INT)", "[1](2INT)[1](INT)", "(2)(2INTEGER)(2)(INTEGER)"} {
		if _, err := ParsePath(text); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
}

func TestFortranPathErrors(t *testing.T) {
	for _, text := range []string{"s(1)[2]", "s[1](2)", "s(1,x)", "s(1", "s%", "(2)(INT)(3)"} {
		if _, err := ParsePath(text); err == nil {
			t.Errorf("%q: parsed, want an error", text)
		}
	}
}

// TestFortranBounds: the face of an array declared a(0:9, -1:18) is named
// by the declared indices once the lower bounds are known.
func TestFortranBounds(t *testing.T) {
	face := mustType(Subarray([]int64{20, 10}, []int64{4, 3}, []int64{5, 2}, OrderC, Predefined(Real)))
	el, err := face.ElementAt(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var asked []int64
	got := el.Path.FortranBounds(func(shape []int64) []int64 {
		asked = shape
		return []int64{0, -1}
	})
	if got != "(SUBARRAY)(2,4)(REAL)" || len(asked) != 2 || asked[0] != 10 || asked[1] != 20 {
		t.Errorf("got %q, asked for shape %v; want (SUBARRAY)(2,4)(REAL) for shape [10 20]", got, asked)
	}
	if got := el.Path.FortranBounds(func([]int64) []int64 { return nil }); got != "(SUBARRAY)(3,6)(REAL)" {
		t.Errorf("without bounds: got %q", got)
	}
}
