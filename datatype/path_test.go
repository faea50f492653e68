package datatype

import (
	"errors"
	"math/rand"
	"testing"
)

func TestExamplePath(t *testing.T) {
	s := exampleStruct()
	for _, text := range []string{"s_type[2][5]", "s_type(STRUCT)[2][5](CHAR)", "[2][5]", "(STRUCT)[2][5]"} {
		p, err := ParsePath(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		el, err := s.Resolve(1, p)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		// the sixth CHAR: element 10, packed byte 25, buffer offset 47+5
		if el.Offset != 52 || el.Packed != 25 || el.Index != 10 || el.Basic != Char {
			t.Errorf("%s: got offset %d packed %d index %d %v, want 52 25 10 CHAR", text, el.Offset, el.Packed, el.Index, el.Basic)
		}
		if got := el.Path.String(); got != "s_type(STRUCT)[2][5](CHAR)" {
			t.Errorf("%s: got path %q", text, got)
		}
	}
	byPacked, _ := s.ElementAtPacked(1, 25)
	byIndex, _ := s.ElementAt(1, 10)
	byOffset, ok := s.ElementAtOffset(1, 52)
	for _, el := range []Element{byPacked, byIndex, byOffset} {
		if el.Path.String() != "s_type(STRUCT)[2][5](CHAR)" || !ok {
			t.Errorf("lookup: got %v", el.Path)
		}
	}
	if _, ok := s.ElementAtOffset(1, 20); ok {
		t.Error("offset 20 is in a gap, got an element")
	}
}

func TestNestedPaths(t *testing.T) {
	inner := exampleStruct()
	halo := mustType(Vector(3, 2, 4, inner)).SetName("halo")
	el, err := halo.ElementAt(2, 84+14+10) // 84 per instance; block 0, element 1, CHAR 5
	if err != nil {
		t.Fatal(err)
	}
	want := "[1]halo(VECTOR)[0][1].s_type(STRUCT)[2][5](CHAR)"
	if got := el.Path.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := el.Path.Short(); got != "[1]halo[0][1][2][5]" {
		t.Errorf("short: got %q", got)
	}
	for _, text := range []string{want, el.Path.Short()} {
		p, err := ParsePath(text)
		if err != nil {
			t.Fatal(err)
		}
		back, err := halo.Resolve(2, p)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if back.Offset != el.Offset || back.Index != el.Index {
			t.Errorf("%s: got offset %d index %d, want %d %d", text, back.Offset, back.Index, el.Offset, el.Index)
		}
	}
	r := mustType(Resized(0, 8, P(DoubleInt))).SetName("r")
	el, _ = r.ElementAt(1, 1)
	if got := el.Path.String(); got != "r(RESIZED)(DOUBLE_INT)[1](INT)" {
		t.Errorf("got %q", got)
	}
}

func TestPathErrors(t *testing.T) {
	s := exampleStruct()
	for _, tt := range []struct{ text, want string }{
		{"s_type[2]", "s_type[2]: s_type(STRUCT) needs 2 indices, the path gives 1: path does not fit the type"},
		{"s_type[9][0]", "s_type[9][0]: index [9 0] is out of range for s_type(STRUCT): path does not fit the type"},
		{"other[2][5]", "other[2][5]: names other where the type is s_type(STRUCT): path does not fit the type"},
		{"s_type[2][5](INT)", "s_type[2][5](INT): names INT where the element is CHAR: path does not fit the type"},
		{"s_type[0][0]", "s_type[0][0]: names an MPI_LB marker, which holds no data: path does not fit the type"},
		{"[1]s_type[2][5]", "[1]s_type[2][5]: instance 1 of a buffer of 1: path does not fit the type"},
	} {
		p, err := ParsePath(tt.text)
		if err != nil {
			t.Fatalf("%s: %v", tt.text, err)
		}
		_, err = s.Resolve(1, p)
		if err == nil || !errors.Is(err, ErrPathMismatch) {
			t.Errorf("%s: got %v, want a path mismatch", tt.text, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%s: got %q, want %q", tt.text, err, tt.want)
		}
	}
	for _, text := range []string{"", "s[", "s[-1]", "s(NOPE)[1]", "s[1](INT)[2]", "s..t"} {
		if _, err := ParsePath(text); err == nil {
			t.Errorf("%q: parsed, want an error", text)
		} else if pe := (*PathError)(nil); !errors.As(err, &pe) {
			t.Errorf("%q: got %T, want *PathError", text, err)
		}
	}
}

// TestPathsAgree: for every element of random types, the three lookups
// and Resolve(ParsePath(String)) agree with the type map.
func TestPathsAgree(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for n := 0; n < 300; n++ {
		ty := sigTestType(r, 3)
		checkPaths(t, ty, int64(1+r.Intn(3)))
	}
}

func checkPaths(t *testing.T, ty *Type, count int64) {
	t.Helper()
	var i, packed int64
	for disp, b := range ty.TypeMap(count) {
		el, err := ty.ElementAt(count, i)
		if err != nil || el.Offset != disp || el.Basic != b || el.Packed != packed {
			t.Fatalf("%s x%d element %d: got %+v %v, want offset %d %v packed %d", ty.Signature(), count, i, el, err, disp, b, packed)
		}
		if byPacked, err := ty.ElementAtPacked(count, packed+b.Size()-1); err != nil || byPacked.Index != i {
			t.Fatalf("%s: packed byte %d: got %+v %v, want element %d", ty.Signature(), packed, byPacked, err, i)
		}
		p, err := ParsePath(el.Path.String())
		if err != nil {
			t.Fatalf("%s: %v", el.Path, err)
		}
		back, err := ty.Resolve(count, p)
		if err != nil || back.Index != i || back.Offset != disp {
			t.Fatalf("%s: resolve got %+v %v, want element %d", el.Path, back, err, i)
		}
		f := el.Path.Fortran()
		pf, err := ParsePath(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if back, err := ty.Resolve(count, pf); err != nil || back.Index != i || back.Offset != disp || back.Path.Fortran() != f {
			t.Fatalf("%s: resolve got %+v %v, want element %d", f, back, err, i)
		}
		if pf.String() != f {
			t.Fatalf("%s: a parsed Fortran path prints as %s", f, pf.String())
		}
		if at, ok := ty.ElementAtOffset(count, disp); !ok || at.Offset > disp || at.Offset+at.Basic.Size() <= disp {
			t.Fatalf("%s: offset %d: got %+v %v", el.Path, disp, at, ok)
		}
		i++
		packed += b.Size()
	}
}

func FuzzPath(f *testing.F) {
	for _, s := range []string{"s_type[2][5]", "[1]halo(VECTOR)[0][1].s_type(STRUCT)[2][5](CHAR)", "(DOUBLE_INT)[1](INT)", "r(RESIZED)(CONTIGUOUS)[3]", "[0]", "(2)halo(VECTOR)(1,2)%s_type(STRUCT)(3,6)(CHAR)", "face(SUBARRAY)(3,-6)(REAL)", "(2INT)[1](INT)", "(2)(2INTEGER)(2)(INTEGER)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		q, err := ParsePath(p.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, p.String(), err)
		}
		if q.String() != p.String() {
			t.Fatalf("%q: round trip %q -> %q", s, p.String(), q.String())
		}
	})
}
