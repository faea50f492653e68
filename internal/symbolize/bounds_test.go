package symbolize

import (
	"slices"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
)

// TestLowerBounds: the arrays a Fortran main program declares, and those
// of the modules it uses, answer by their shape; two of one shape with
// different bounds answer nothing, and so does any shape of an
// allocatable array's rank (its bounds are known at run time only: it
// may be the buffer).
func TestLowerBounds(t *testing.T) {
	prog := `module m_used
  double precision :: g(0:4, 6)
end module m_used
module m_other
  double precision :: oth(-2:2, 6)
end module m_other
program bounds
  use m_used
  implicit none
  double precision :: u(0:5, -1:3), w(7, 5), a(4, 4), b(0:3, 0:3)
  real, allocatable :: z(:, :, :)
  allocate(z(0:8, 0:8, 0:1))
  u = 1d0; w = 2d0; a = 3d0; b = 4d0; z = 5.0; g = 6d0
  print *, sum(u) + sum(w) + sum(a) + sum(b) + sum(z)
end program bounds
`
	exe := buildFortran(t, prog)
	main := symbolValue(t, exe, func(name string) bool { return name == "MAIN__" })
	if main == 0 {
		t.Fatal("no MAIN__ symbol")
	}
	r := New()
	at := checks.Site{Module: exe, Offset: main + 8}
	for _, tt := range []struct {
		shape, want []int64
	}{
		{[]int64{6, 5}, []int64{0, -1}},
		{[]int64{7, 5}, []int64{1, 1}},
		{[]int64{4, 4}, nil},    // a and b disagree
		{[]int64{9, 9, 2}, nil}, // z's bounds are known only at run time
		{[]int64{1, 1, 1}, nil}, // nor does z's rank say which it is
		{[]int64{6}, nil},
		{[]int64{5, 6}, []int64{0, 1}}, // g of the module used, not oth of the other
	} {
		if got := r.LowerBounds(at, tt.shape); !slices.Equal(got, tt.want) {
			t.Errorf("shape %v: got %v, want %v", tt.shape, got, tt.want)
		}
	}
	if got := r.LowerBounds(checks.Site{Module: exe, Offset: 1}, []int64{6, 5}); got != nil {
		t.Errorf("outside any unit: got %v", got)
	}
}
