package checks

import (
	"strings"
	"testing"
)

func TestLanguageNames(t *testing.T) {
	for _, tt := range []struct {
		lang     Language
		in, want string
	}{
		{LangC, "MPI_INT on MPI_COMM_WORLD", "MPI_INT on MPI_COMM_WORLD"},
		{LangPython, "MPI_INT on MPI_COMM_WORLD", "MPI.INT on MPI.COMM_WORLD"},
		{LangPython, "MPI_2INT and MPI_DOUBLE_INT", "MPI.TWOINT and MPI.DOUBLE_INT"},
		// the standard's capitalised function names and the C binding's
		// are functions, not module attributes
		{LangPython, "freed by MPI_TYPE_FREE after MPI_Send", "freed by MPI_TYPE_FREE after MPI_Send"},
		{LangPython, "MPIX_FOO and xMPI_INT", "MPIX_FOO and xMPI_INT"},
		{LangFortran, "8 MPI_DOUBLE into room for 4 MPI_INT", "8 MPI_DOUBLE_PRECISION into room for 4 MPI_INTEGER"},
		{LangFortran, "MPI_2INT, MPI_BYTE, MPI_COMM_WORLD", "MPI_2INTEGER, MPI_BYTE, MPI_COMM_WORLD"},
		{LangFortran, "MPI_LONG_DOUBLE", "MPI_LONG_DOUBLE"}, // MPI has no predefined Fortran type for it
		{LangFortran, "MPI_C_BOOL", "MPI_C_BOOL"},           // LOGICAL is 4 bytes
	} {
		if got := tt.lang.Names(tt.in); got != tt.want {
			t.Errorf("%v.Names(%q) = %q, want %q", tt.lang, tt.in, got, tt.want)
		}
	}
}

func TestLanguagePaths(t *testing.T) {
	for _, tt := range []struct {
		lang     Language
		in, want string
	}{
		{LangFortran, "sends t_a(STRUCT)[2](DOUBLE) where", "sends t_a(STRUCT)(3)(DOUBLE_PRECISION) where"},
		{LangFortran, "e.g. [3](INT).", "e.g. (4)(INTEGER)."},
		{LangFortran, "[1]halo(VECTOR)[0][1].s_type(STRUCT)[2][5](CHAR)", "(2)halo(VECTOR)(1,2)%s_type(STRUCT)(3,6)(CHARACTER)"},
		// not paths: a call with its argument, a bare name in parentheses
		{LangFortran, "MPI_Recv(MPI_ANY_SOURCE) and f(x)", "MPI_Recv(MPI_ANY_SOURCE) and f(x)"},
		{LangFortran, "the block (STRUCT) as a whole", "the block (STRUCT) as a whole"},
		{LangC, "t_a(STRUCT)[2](DOUBLE)", "t_a(STRUCT)[2](DOUBLE)"},
		{LangPython, "t_a(STRUCT)[2](DOUBLE)", "t_a(STRUCT)[2](DOUBLE)"},
	} {
		if got := tt.lang.paths(tt.in); got != tt.want {
			t.Errorf("%v.paths(%q) = %q, want %q", tt.lang, tt.in, got, tt.want)
		}
	}
}

func TestEntryIn(t *testing.T) {
	e, ok := Lookup("type-mismatch")
	if !ok {
		t.Fatal("no type-mismatch")
	}
	f := e.In(LangFortran)
	if f.Rule != e.Rule {
		t.Errorf("the rule changed: %q", f.Rule)
	}
	if !strings.Contains(f.Doc, "(3)(DOUBLE_PRECISION)") || strings.Contains(f.Doc, "[2](DOUBLE)") {
		t.Errorf("Fortran doc:\n%s", f.Doc)
	}
	if c := e.In(LangC); c != e {
		t.Errorf("C changed the entry")
	}
	// every entry's text survives every language: nothing is lost, only
	// respelt
	for _, e := range All() {
		for _, l := range []Language{LangFortran, LangPython} {
			got := e.In(l)
			if got.ID != e.ID || got.Rule != e.Rule || len(got.Doc) < len(e.Doc) {
				t.Errorf("%s in %v: %+v", e.ID, l, got)
			}
		}
	}
}

func TestParseLanguage(t *testing.T) {
	for in, want := range map[string]Language{"c": LangC, "C++": LangC, "cpp": LangC, "Fortran": LangFortran, "f90": LangFortran, "python": LangPython, " py ": LangPython} {
		if got, err := ParseLanguage(in); err != nil || got != want {
			t.Errorf("ParseLanguage(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "cobol", "rust"} {
		if _, err := ParseLanguage(in); err == nil {
			t.Errorf("ParseLanguage(%q): no error", in)
		}
	}
}

func TestFileLanguage(t *testing.T) {
	for file, want := range map[string]Language{
		"/src/halo.f90": LangFortran, "old.F": LangFortran, "x.F08": LangFortran, "legacy.for": LangFortran, "n.f18": LangFortran,
		"app.py": LangPython, "ext.pyx": LangPython, "/a/b.c": LangC, "k.cpp": LangC, "noext": LangC, "": LangC, "dir.f90/x.c": LangC,
	} {
		if got := FileLanguage(file); got != want {
			t.Errorf("FileLanguage(%q) = %v, want %v", file, got, want)
		}
	}
	if !FixedForm("old.F") || !FixedForm("x.fpp") || FixedForm("new.f90") || FixedForm("a.c") {
		t.Error("FixedForm")
	}
	if got := LangFortran.ExplainCommand("type-mismatch"); got != "mpidbg explain --lang fortran type-mismatch" {
		t.Errorf("ExplainCommand: %q", got)
	}
	if got := LangC.ExplainCommand("leak"); got != "mpidbg explain leak" {
		t.Errorf("ExplainCommand: %q", got)
	}
}
