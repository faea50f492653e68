package datatype

import (
	"errors"
	"testing"
)

// TestBounds checks size and bounds against values hand-derived from the
// standard and confirmed against MPICH 4.0.2 (the probes are in the
// differential test's hand-picked list too).
func TestBounds(t *testing.T) {
	dc := mustType(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{P(Double), P(Char)}))
	y := mustType(Struct([]int64{1, 1}, []int64{0, 9}, []*Type{P(Double), P(UB)}))
	negExt := mustType(Resized(0, -4, P(Int)))
	r := mustType(Resized(-4, 2, P(Int)))
	tests := []struct {
		name                             string
		ty                               *Type
		size, lb, extent, trueLB, trueEx int64
	}{
		{"example struct", exampleStruct(), 43, -4, 104, 0, 92},
		{"struct alignment padding", dc, 9, 0, 16, 0, 9},
		{"hvector keeps inner padding", mustType(Hvector(2, 1, 20, dc)), 18, 0, 36, 0, 29},
		{"vector count 0", mustType(Vector(0, 1, 1, P(Int))), 0, 0, 0, 0, 0},
		{"vector blocklength 0 spans the strides", mustType(Vector(3, 0, 2, P(Int))), 0, 0, 16, 0, 16},
		{"negative stride", mustType(Vector(3, 2, -2, r)), 24, -12, 12, -8, 14},
		{"negative extent", mustType(Contiguous(3, negExt)), 12, -8, 4, -8, 12},
		{"indexed skips empty blocks", mustType(Indexed([]int64{0, 2, 0}, []int64{10, 1, -5}, P(Int))), 8, 4, 8, 4, 8},
		{"same-type struct is not padded", mustType(Struct([]int64{1, 1}, []int64{0, 12}, []*Type{P(Double), P(Double)})), 16, 0, 20, 0, 20},
		{"zero block ignored for alignment", mustType(Struct([]int64{1, 0}, []int64{0, 0}, []*Type{P(Char), P(LongDouble)})), 1, 0, 1, 0, 1},
		{"inner UB marker is not sticky", mustType(Struct([]int64{1, 1}, []int64{0, 0}, []*Type{y, P(Char)})), 9, 0, 16, 0, 8},
		{"pair type", P(ShortInt), 6, 0, 8, 0, 8},
		{"long double pair", P(LongDoubleInt), 20, 0, 32, 0, 20},
		{"subarray C", mustType(Subarray([]int64{4, 5, 6}, []int64{2, 3, 4}, []int64{1, 1, 2}, OrderC, P(Double))), 192, 0, 960, 304, 368},
		{"subarray Fortran", mustType(Subarray([]int64{4, 5, 6}, []int64{2, 3, 4}, []int64{1, 1, 2}, OrderFortran, P(Double))), 192, 0, 960, 360, 560},
		{"darray block x cyclic(2)", mustType(Darray(6, 5, []int64{10, 7}, []Distrib{DistribBlock, DistribCyclic}, []int64{DargDefault, 2}, []int64{3, 2}, OrderC, P(Int))), 24, 0, 280, 232, 48},
		{"darray Fortran", mustType(Darray(6, 5, []int64{10, 7}, []Distrib{DistribBlock, DistribCyclic}, []int64{DargDefault, 2}, []int64{3, 2}, OrderFortran, P(Int))), 24, 0, 280, 112, 168},
	}
	for _, tt := range tests {
		got := [5]int64{tt.ty.TypeSize(), tt.ty.LB(), tt.ty.Extent(), tt.ty.TrueLB(), tt.ty.TrueExtent()}
		want := [5]int64{tt.size, tt.lb, tt.extent, tt.trueLB, tt.trueEx}
		if got != want {
			t.Errorf("%s: got size/lb/extent/true_lb/true_extent %v, want %v", tt.name, got, want)
		}
	}
}

func TestConstructorErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"negative count", second(Vector(-1, 5, 3, P(Char))), "vector: count -1 must be non-negative"},
		{"negative blocklength", second(Indexed([]int64{1, -2}, []int64{0, 4}, P(Int))), "indexed: blocklengths[1] -2 must be non-negative"},
		{"null old type", second(Contiguous(1, nil)), "contiguous: oldtype MPI_DATATYPE_NULL is not a valid datatype"},
		{"marker outside struct", second(Contiguous(1, P(LB))), "contiguous: oldtype MPI_LB is only allowed in a struct"},
		{"subarray start", second(Subarray([]int64{4}, []int64{2}, []int64{3}, OrderC, P(Int))), "subarray: starts[0] 3 must be between 0 and sizes-subsizes (2)"},
		{"darray grid", second(Darray(4, 0, []int64{8}, []Distrib{DistribBlock}, []int64{DargDefault}, []int64{3}, OrderC, P(Int))), "darray: psizes [3] must multiply to size (4)"},
		{"darray block too small", second(Darray(2, 0, []int64{8}, []Distrib{DistribBlock}, []int64{3}, []int64{2}, OrderC, P(Int))), "darray: dargs[0] 3 times psizes (2) must cover gsizes (8) for MPI_DISTRIBUTE_BLOCK"},
		{"struct lengths", second(Struct([]int64{1}, []int64{0, 1}, []*Type{P(Int)})), "struct: arrays [1 2 1] must have equal lengths"},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: got no error, want %q", tt.name, tt.want)
			continue
		}
		if tt.err.Error() != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.err, tt.want)
		}
		if !errors.Is(tt.err, ErrInvalidArgument) {
			t.Errorf("%s: error does not wrap ErrInvalidArgument", tt.name)
		}
	}
}

func second(_ *Type, err error) error { return err }

// TestTypeMapOrder: the walk yields displacements in type-map order, for a
// buffer of several instances too.
func TestTypeMapOrder(t *testing.T) {
	v := mustType(Vector(2, 2, 3, P(Short)))
	var got []int64
	for d := range v.TypeMap(2) {
		got = append(got, d)
	}
	want := []int64{0, 2, 6, 8, 10, 12, 16, 18} // extent 10
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestMagnitude: types whose sizes or bounds would not fit the model's
// int64 byte quantities are refused instead of wrapping around.
func TestMagnitude(t *testing.T) {
	big := int64(1) << 61
	for name, err := range map[string]error{
		"vector elements":  second(Vector(big, 2, big, P(Double))),
		"contiguous bytes": second(Contiguous(big, P(LongDouble))),
		"hvector stride":   second(Hvector(4, 1, big, P(Char))),
		"struct span":      second(Struct([]int64{1}, []int64{big * 3}, []*Type{P(Int)})),
		"subarray":         second(Subarray([]int64{1 << 31, 1 << 31}, []int64{1, 1}, []int64{0, 0}, OrderC, P(Double))),
		"resized":          second(Resized(big*3, 1, P(Int))),
	} {
		if err == nil || !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: got %v, want a refusal", name, err)
		}
	}
	if _, err := Vector(1<<30, 1, 1<<20, P(Double)); err != nil {
		t.Errorf("a large but representable vector: %v", err)
	}
}
