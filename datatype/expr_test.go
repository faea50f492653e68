package datatype

import (
	"errors"
	"strings"
	"testing"
)

func TestExprRoundTrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"int", "INT"},
		{" MPI_Double_Int ", "DOUBLE_INT"},
		{"mpi_2int", "2INT"},
		{"LONG_LONG_INT", "LONG_LONG"},
		{"contiguous(3, CHAR)", "contiguous(3,CHAR)"},
		{"Vector(2, 5, -3, MPI_CHAR)", "vector(2,5,-3,CHAR)"},
		{"hvector(2,1,+24,DOUBLE)", "hvector(2,1,24,DOUBLE)"},
		{"indexed([2, 0], [5, -1], INT)", "indexed([2,0],[5,-1],INT)"},
		{"hindexed([], [], INT)", "hindexed([],[],INT)"},
		{"indexed_block(2,[0,4],SHORT)", "indexed_block(2,[0,4],SHORT)"},
		{"hindexed_block(1,[8,0],FLOAT)", "hindexed_block(1,[8,0],FLOAT)"},
		{"s_type = struct([1,2,1],[0,8,24],[LB, v=vector(2,1,2,CHAR), MPI_UB])",
			"s_type=struct([1,2,1],[0,8,24],[LB,v=vector(2,1,2,CHAR),UB])"},
		{"struct([],[],[])", "struct([],[],[])"},
		{"subarray([4,5],[2,3],[1,0],fortran,INT)", "subarray([4,5],[2,3],[1,0],FORTRAN,INT)"},
		{"subarray([4],[2],[1],MPI_ORDER_C,INT)", "subarray([4],[2],[1],C,INT)"},
		{"darray(4,1,[8,6],[block,MPI_DISTRIBUTE_CYCLIC],[dflt,2],[2,2],C,DOUBLE)",
			"darray(4,1,[8,6],[BLOCK,CYCLIC],[DFLT,2],[2,2],C,DOUBLE)"},
		{"darray(1,0,[3],[NONE],[MPI_DISTRIBUTE_DFLT_DARG],[1],C,INT)", "darray(1,0,[3],[NONE],[DFLT],[1],C,INT)"},
		{"resized(-4, 16, dup(INT))", "resized(-4,16,dup(INT))"},
	}
	for _, tt := range tests {
		ty, err := ParseExpr(tt.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.in, err)
			continue
		}
		if got := ty.Expr(); got != tt.want {
			t.Errorf("ParseExpr(%q).Expr() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExprBuildsTheType(t *testing.T) {
	ty, err := ParseExpr("s=struct([1,1],[0,8],[INT,vector(2,1,3,CHAR)])")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := Vector(2, 1, 3, Predefined(Char))
	want, _ := Struct([]int64{1, 1}, []int64{0, 8}, []*Type{Predefined(Int), v})
	if ty.Name != "s" || ty.TypeSize() != want.TypeSize() || ty.LB() != want.LB() || ty.Extent() != want.Extent() ||
		ty.TrueLB() != want.TrueLB() || ty.TrueExtent() != want.TrueExtent() {
		t.Errorf("got %s size %d lb %d extent %d, want s size %d lb %d extent %d",
			ty.Name, ty.TypeSize(), ty.LB(), ty.Extent(), want.TypeSize(), want.LB(), want.Extent())
	}
	if ty.Types[0] != Predefined(Int) {
		t.Errorf("INT in a struct is not the predefined INT")
	}
}

// TestExprDepth: constructors nested as deep as allowed still parse.
func TestExprDepth(t *testing.T) {
	in := strings.Repeat("contiguous(1,", maxExprDepth) + "INT" + strings.Repeat(")", maxExprDepth)
	if _, err := ParseExpr(in); err != nil {
		t.Fatalf("%d constructors deep: %v", maxExprDepth, err)
	}
}

func TestExprErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		msg    string
		arg    bool // an *ArgError is wrapped
	}{
		{"", 0, "expected a name", false},
		{"nosuch", 0, "unknown type nosuch", false},
		{"contiguous(2 INT)", 13, `expected ','`, false},
		{"vector(2,1,x,INT)", 11, "expected an integer", false},
		{"contiguous(99999999999999999999,INT)", 11, "expected an integer", false},
		{"INT junk", 4, "unexpected", false},
		{"frob(1,INT)", 0, "unknown constructor frob", false},
		{"x=INT", 0, "cannot be renamed", false},
		{"2x=contiguous(1,INT)", 0, "not a valid type name", false},
		{"subarray([2],[1],[0],D,INT)", 21, "order D", false},
		{"darray(1,0,[2],[SPLIT],[DFLT],[1],C,INT)", 16, "distribution SPLIT", false},
		{"darray(1,0,[2],[BLOCK],[BIG],[1],C,INT)", 24, "darg BIG", false},
		{"contiguous(1,INT", 16, `expected ')'`, false},
		{"contiguous(-1,INT)", 0, "contiguous: count -1 must be non-negative", true},
		{"dup( vector(1,1,1,LB))", 5, "vector: oldtype MPI_LB is only allowed in a struct", true},
		{"indexed([1],[],INT)", 0, "displacements", true},
		{strings.Repeat("dup(", maxExprDepth+1) + "INT" + strings.Repeat(")", maxExprDepth+1), 4 * maxExprDepth, "nested more than 256 deep", false},
	}
	for _, tt := range tests {
		_, err := ParseExpr(tt.in)
		var ee *ExprError
		if !errors.As(err, &ee) {
			t.Errorf("ParseExpr(%q) = %v, want an *ExprError", tt.in, err)
			continue
		}
		if ee.Offset != tt.offset || !strings.Contains(ee.Msg, tt.msg) {
			t.Errorf("ParseExpr(%q): got offset %d %q, want offset %d containing %q", tt.in, ee.Offset, ee.Msg, tt.offset, tt.msg)
		}
		var ae *ArgError
		if got := errors.As(err, &ae); got != tt.arg || got != errors.Is(err, ErrInvalidArgument) {
			t.Errorf("ParseExpr(%q): wraps an *ArgError: got %v, want %v", tt.in, got, tt.arg)
		}
	}
}

func FuzzExpr(f *testing.F) {
	for _, s := range []string{
		"INT",
		"vector(2,5,-3,CHAR)",
		"s=struct([1,2,1],[0,8,24],[LB,v=hvector(2,1,2,DOUBLE_INT),UB])",
		"indexed([2,0],[5,-1],resized(-4,16,dup(SHORT)))",
		"indexed_block(2,[0,4],hindexed_block(1,[8,0],hindexed([1],[3],FLOAT)))",
		"subarray([4,5],[2,3],[1,0],FORTRAN,contiguous(2,LONG_DOUBLE))",
		"darray(4,1,[8,6],[BLOCK,CYCLIC],[DFLT,2],[2,2],C,DOUBLE)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if hugeLiteral(s) {
			// the model is lazy except for darray's cyclic runs, which it
			// lists: keep the arrays small enough to build
			return
		}
		ty, err := ParseExpr(s)
		if err != nil {
			var ee *ExprError
			if !errors.As(err, &ee) || ee.Offset < 0 || ee.Offset > len(s) {
				t.Fatalf("ParseExpr(%q): bad error %#v", s, err)
			}
			return
		}
		text := ty.Expr()
		back, err := ParseExpr(text)
		if err != nil {
			t.Fatalf("ParseExpr(%q).Expr() = %q does not parse: %v", s, text, err)
		}
		if again := back.Expr(); again != text {
			t.Fatalf("Expr round trip of %q: %q then %q", s, text, again)
		}
		if back.Name != ty.Name && isIdent(ty.Name) || back.TypeSize() != ty.TypeSize() || back.LB() != ty.LB() ||
			back.UB() != ty.UB() || back.TrueLB() != ty.TrueLB() || back.TrueUB() != ty.TrueUB() {
			t.Fatalf("Expr round trip of %q changed the type", s)
		}
	})
}

// hugeLiteral reports whether s holds a number of more than 4 digits.
func hugeLiteral(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			if run++; run > 4 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
