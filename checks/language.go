package checks

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/shim/calls"
)

// Language is the language of a program, or of the code a finding points
// at: it decides how MPI's names are spelled. The catalogue is written
// with the C binding's names; Entry.In and Language.Names spell them for
// the others.
type Language uint8

const (
	LangC       Language = iota // C and C++: the C binding's names (MPI_INT)
	LangFortran                 // the Fortran bindings' names (MPI_INTEGER) and Fortran-form paths
	LangPython                  // mpi4py's names (MPI.INT)
)

var languageNames = [...]string{LangC: "c", LangFortran: "fortran", LangPython: "python"}

func (l Language) String() string {
	if int(l) < len(languageNames) {
		return languageNames[l]
	}
	return fmt.Sprintf("Language(%d)", uint8(l))
}

// ParseLanguage reads a language's name as `mpidbg explain --lang` takes
// it: c, c++ (cpp, cxx), fortran (f, f77, f90, f08) or python (py,
// mpi4py), in any case.
func ParseLanguage(s string) (Language, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "c", "c++", "cpp", "cxx":
		return LangC, nil
	case "fortran", "f", "f77", "f90", "f08":
		return LangFortran, nil
	case "python", "py", "mpi4py":
		return LangPython, nil
	}
	return LangC, fmt.Errorf("unknown language %q (want c, c++, fortran or python)", s)
}

// Suffixes of source files by language, as compilers tell them apart
// (gfortran: fixed form .f, .for, .ftn, .fpp, and .f77 by convention;
// free form .f90 to .f18; in either case); Cython's .pyx is read as
// Python. Any other file is C or C++.
var (
	fixedFortranSuffixes = []string{".f", ".for", ".f77", ".ftn", ".fpp"}
	freeFortranSuffixes  = []string{".f90", ".f95", ".f03", ".f08", ".f18"}
	pythonSuffixes       = []string{".py", ".pyw", ".pyx"}
)

// FileLanguage is the language of a source file by its name's suffix.
func FileLanguage(file string) Language {
	ext := strings.ToLower(path.Ext(file))
	switch {
	case slices.Contains(fixedFortranSuffixes, ext), slices.Contains(freeFortranSuffixes, ext):
		return LangFortran
	case slices.Contains(pythonSuffixes, ext):
		return LangPython
	}
	return LangC
}

// FixedForm reports whether file is Fortran in fixed form by its suffix:
// column 6 continues a statement, column 1 starts a comment.
func FixedForm(file string) bool {
	return slices.Contains(fixedFortranSuffixes, strings.ToLower(path.Ext(file)))
}

// ExplainCommand is the command line that documents finding id in l.
func (l Language) ExplainCommand(id string) string {
	if l == LangC {
		return "mpidbg explain " + id
	}
	return "mpidbg explain --lang " + l.String() + " " + id
}

// mpiName is an MPI name in the C binding's style: MPI_ and upper-case
// letters, digits and underscores (MPI_DOUBLE, MPI_COMM_WORLD, MPI_2INT,
// and the standard's capitalised function names such as MPI_TYPE_FREE).
var mpiName = regexp.MustCompile(`\bMPI_([A-Z0-9][A-Z0-9_]*)\b`)

// Names spells the MPI constants in text as l's programs do. For Python,
// mpi4py's module attributes: MPI.INT for MPI_INT, and for the pair
// types, whose C names begin with a digit, MPI.TWOINT for MPI_2INT. For
// Fortran, a C datatype becomes the Fortran type a Fortran program uses
// for the same data (fortranTypes). The names of the functions the shim
// wraps (shim/calls) are left as the standard writes them, in capitals or
// not; so is everything in C.
func (l Language) Names(text string) string {
	if l == LangC {
		return text
	}
	return mpiName.ReplaceAllStringFunc(text, func(c string) string {
		if calls.IsFunction(c) {
			return c
		}
		name := strings.TrimPrefix(c, "MPI_")
		if l == LangFortran {
			if f, ok := fortranTypes[name]; ok {
				return "MPI_" + f
			}
			return c
		}
		if strings.HasPrefix(name, "2") {
			name = "TWO" + name[1:]
		}
		return "MPI." + name
	})
}

// fortranTypes maps a C binding's datatype to the Fortran binding's type
// (MPI-4.1 §3.2.2) for the same data at gfortran's default kinds: what an
// example in the catalogue becomes for a Fortran reader. The two still do
// not match each other (§3.3.1); this is spelling, not a type rule. C's
// bool has no counterpart here: LOGICAL is 4 bytes, and a LOGICAL(C_BOOL)
// is sent as MPI_C_BOOL itself.
var fortranTypes = map[string]string{
	"INT":              "INTEGER",
	"FLOAT":            "REAL",
	"DOUBLE":           "DOUBLE_PRECISION",
	"CHAR":             "CHARACTER",
	"C_FLOAT_COMPLEX":  "COMPLEX",
	"C_DOUBLE_COMPLEX": "DOUBLE_COMPLEX",
	"INT8_T":           "INTEGER1",
	"INT16_T":          "INTEGER2",
	"INT32_T":          "INTEGER4",
	"INT64_T":          "INTEGER8",
	"2INT":             "2INTEGER",
}

// pathLike is a stretch of text that may be an element path in the long
// form (datatype.Path): an optional instance, then levels of an optional
// name, a combiner or leaf in parentheses, indices in brackets and the
// "." before a named level; a final "." is the sentence's.
var pathLike = regexp.MustCompile(`(?:\[\d+\])*(?:(?:[A-Za-z_][A-Za-z0-9_]*)?\([A-Z0-9_]+\)(?:\[\d+\])*\.?)+`)

// leafName is a path's level in parentheses: a combiner, or the leaf's
// basic type.
var leafName = regexp.MustCompile(`\(([A-Z0-9_]+)\)`)

// paths writes the element paths in text in l's form: for Fortran, the
// Fortran form (indices from 1, one list per level, datatype.Path.Fortran)
// with the leaves' types as a Fortran program names them. Text that does
// not parse as a path is left alone.
func (l Language) paths(text string) string {
	if l != LangFortran {
		return text
	}
	return pathLike.ReplaceAllStringFunc(text, func(m string) string {
		s, stop := strings.CutSuffix(m, ".")
		p, err := datatype.ParsePath(s)
		if err != nil || !p.Basic.Valid() || !strings.Contains(s, "[") {
			return m
		}
		f := leafName.ReplaceAllStringFunc(p.Fortran(), func(c string) string {
			if f, ok := fortranTypes[c[1:len(c)-1]]; ok {
				return "(" + f + ")"
			}
			return c
		})
		if stop {
			f += "."
		}
		return f
	})
}

// In returns e with its title and documentation in l's names and paths.
// The rule keeps the standard's words.
func (e Entry) In(l Language) Entry {
	e.Title = l.Names(l.paths(e.Title))
	e.Doc = l.Names(l.paths(e.Doc))
	return e
}
