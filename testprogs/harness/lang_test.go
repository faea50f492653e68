// The languages of the programs: a file's extension picks its comment
// marker and, for the compiled ones, its MPI compiler wrapper and the
// flags every program of the language is built with (a Python script is
// run by its interpreter).

package harness

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/mpilib"
)

type lang struct {
	name     string // for messages: C, Fortran, C++, Python
	ext      string // the file name's extension: .c, .f90, .cpp
	comment  string // what starts a comment to the end of the line: // or !
	compiler string // the compiler the wrappers run, which may be missing: gcc, gfortran, g++
	// wrapper is the MPI library's compiler wrapper for the language, as
	// Debian names it (the plain names follow update-alternatives, so they
	// may belong to the other library)
	wrapper func(mpilib.MPI) string
	flags   []string // before "-o EXE SOURCE" (a program's cflags come after)
	// tolerated matches lines of the compiler's output that are no
	// warning about the program (build then ignores them); nil: none
	tolerated *regexp.Regexp
	// foldCase: the language ignores case in names (Fortran), so
	// mpi_win_fence is MPI_Win_fence
	foldCase bool
	// continuation ends a line whose statement goes on on the next one
	// (Fortran's &); "" where statements are not line-based
	continuation string
	// script: the program is not compiled but run by an interpreter
	// (python_test.go), which the tests find per MPI library
	script bool
	syn    syntax // the header and annotation syntax with comment
}

var (
	// C99, as every program was first written.
	langC = &lang{
		name: "C", ext: ".c", comment: "//", compiler: "gcc",
		wrapper: mpilib.Compiler,
		flags:   []string{"-std=c99", "-g", "-O0", "-Wall", "-Wextra"},
	}
	// Free-form Fortran (the .f90 suffix: gfortran reads it as free form),
	// through any of the three bindings: use mpi_f08, use mpi, and the
	// deprecated include 'mpif.h' (MPI-4.1 §19.1.1 to §19.1.4); so no -std, since
	// MPICH's mpif.h declares INTEGER*8 and REAL*8. MPICH's wrapper
	// passes -fallow-argument-mismatch, Open MPI's does not (its use mpi
	// ignores the type, kind and rank of choice buffers, and its mpif.h
	// programs must then pass one type and rank to each routine).
	langFortran = &lang{
		name: "Fortran", ext: ".f90", comment: "!", compiler: "gfortran",
		wrapper: mpilib.FortranCompiler,
		// -Wno-unused-parameter: in gfortran it is about PARAMETER
		// constants, of which mpif.h declares hundreds a program does not
		// use. Plain output: one line per diagnostic, for tolerated.
		flags:    []string{"-g", "-O0", "-Wall", "-Wextra", "-Wno-unused-parameter", "-fdiagnostics-plain-output"},
		foldCase: true,
		// MPICH's use mpi has no interfaces for choice buffers, so a
		// program that passes a buffer of one type or rank to an MPI
		// routine and one of another elsewhere makes gfortran compare
		// the two calls; -fallow-argument-mismatch, which MPICH's wrapper
		// passes for this, makes that a warning no option silences. A
		// choice buffer takes any type and rank (MPI-4.1 §19.1.3), so the warning
		// and its second location's line ("Warning: (1)") are dropped;
		// Open MPI's build of the same file still checks everything else.
		tolerated:    regexp.MustCompile(`^[^:]+:\d+:\d+: Warning: (?:(?:Type|Rank) mismatch between actual argument at \(1\) and actual argument at \(2\) .*|\(1\))$`),
		continuation: "&",
	}
	// C++17 calling MPI's C functions: the C++ bindings left MPI in 3.0,
	// and mpi.h still pulls in each library's old ones (whose Open MPI
	// headers -Wextra warns about) unless told not to.
	langCxx = &lang{
		name: "C++", ext: ".cpp", comment: "//", compiler: "g++",
		wrapper: mpilib.CxxCompiler,
		flags:   []string{"-std=c++17", "-g", "-O0", "-Wall", "-Wextra", "-DMPICH_SKIP_MPICXX", "-DOMPI_SKIP_MPICXX"},
	}
	// Python 3 scripts calling MPI through mpi4py (python_test.go): no
	// build; each runs with the library its interpreter's mpi4py links.
	langPython = &lang{name: "Python", ext: ".py", comment: "#", script: true}
	langs      = []*lang{langC, langFortran, langCxx, langPython}
)

func init() {
	for _, l := range langs {
		l.syn = newSyntax(l.comment)
	}
}

// langOf is the language of a program file, by its extension; nil for
// none of langs.
func langOf(file string) *lang {
	for _, l := range langs {
		if filepath.Ext(file) == l.ext {
			return l
		}
	}
	return nil
}

// exts lists the extensions of langs, for messages: ".c, .f90, .cpp or .py".
func exts() string {
	var out []string
	for _, l := range langs {
		out = append(out, l.ext)
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// warnings is the compiler's output out without the lines l tolerates.
func (l *lang) warnings(out []byte) string {
	var keep []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" || l.tolerated != nil && l.tolerated.MatchString(line) {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

// TestCompilerWarnings checks which lines of a compiler's output build
// takes for warnings: with Fortran, all but the argument mismatches
// MPICH's -fallow-argument-mismatch leaves (gfortran 12's plain output).
func TestCompilerWarnings(t *testing.T) {
	mismatch := "ring.f90:10:19: Warning: (1)\n" +
		"ring.f90:9:19: Warning: Rank mismatch between actual argument at (1) and actual argument at (2) (scalar and rank-1)\n" +
		"ring.f90:11:19: Warning: (1)\n" +
		"ring.f90:9:19: Warning: Type mismatch between actual argument at (1) and actual argument at (2) (REAL(8)/INTEGER(4)).\n"
	other := "ring.f90:14:8: Warning: Unused variable ‘k’ declared at (1) [-Wunused-variable]"
	for _, tt := range []struct {
		l        *lang
		out, got string
	}{
		{langFortran, "", ""},
		{langFortran, mismatch, ""},
		{langFortran, mismatch + other + "\n", other},
		{langC, "\n", ""},
		{langC, "x.c:3:5: warning: unused variable ‘k’ [-Wunused-variable]\n", "x.c:3:5: warning: unused variable ‘k’ [-Wunused-variable]"},
		// the same words from a C compiler are a warning like any other
		{langCxx, mismatch, strings.TrimSpace(mismatch)},
	} {
		if got := tt.l.warnings([]byte(tt.out)); got != tt.got {
			t.Errorf("%s, %q: got %q, want %q", tt.l.name, tt.out, got, tt.got)
		}
	}
	for file, want := range map[string]*lang{"ok_a.c": langC, "bug_b.f90": langFortran, "ok_c.cpp": langCxx, "ok_d.f": nil, "ok_e.F90": nil, "ok_f.h": nil, "bug_g.py": langPython} {
		if got := langOf(file); got != want {
			t.Errorf("langOf(%q) = %v, want %v", file, got, want)
		}
	}
}
