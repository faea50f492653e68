// Package mpilib says which MPI library a program uses and what mpidbg
// runs it with: the shim built for that library and the mpiexec that
// starts its ranks.
//
// mpidbg supports MPICH (and its ABI: Intel MPI, MVAPICH) and Open MPI.
// Their handles differ (MPICH's are ints, Open MPI's are pointers), so
// the shim is built once per library (lib/libmpidbg.so for MPICH,
// lib/libmpidbg-openmpi.so for Open MPI), and a rank must get the one
// that matches the libmpi it loads.
package mpilib

import (
	"fmt"
	"strings"

	"github.com/mpidbg/mpidbg/shim/registry"
)

// MPI is a library, numbered as the registry records it.
type MPI = registry.MPI

// The libraries mpidbg knows.
const (
	MPICH   = registry.MPICH
	OpenMPI = registry.OpenMPI
)

// All lists them in the order mpidbg prefers when nothing says which.
var All = []MPI{MPICH, OpenMPI}

// Parse reads a library's name as --mpi takes it: mpich or openmpi.
func Parse(s string) (MPI, error) {
	switch strings.ToLower(s) {
	case "mpich":
		return MPICH, nil
	case "openmpi", "open-mpi", "ompi":
		return OpenMPI, nil
	}
	return 0, fmt.Errorf("unknown MPI %q: want mpich or openmpi", s)
}

// Shim is the file name of the shim built for m, in mpidbg's lib
// directory.
func Shim(m MPI) string {
	if m == OpenMPI {
		return "libmpidbg-openmpi.so"
	}
	return "libmpidbg.so"
}

// MPIExecNames are the launcher names to look for on PATH for m, best
// first: Debian installs each library's as mpiexec.NAME, and the plain
// mpiexec follows update-alternatives, so it may belong to the other
// library.
func MPIExecNames(m MPI) []string {
	if m == OpenMPI {
		return []string{"mpiexec.openmpi", "mpiexec"}
	}
	return []string{"mpiexec.mpich", "mpiexec"}
}

// Compiler is m's C compiler wrapper as Debian names it (the plain mpicc
// follows update-alternatives, as mpiexec does).
func Compiler(m MPI) string {
	if m == OpenMPI {
		return "mpicc.openmpi"
	}
	return "mpicc.mpich"
}

// FortranCompiler is m's Fortran compiler wrapper as Debian names it
// (mpif90.mpich, mpif90.openmpi): it builds all three bindings.
func FortranCompiler(m MPI) string { return "mpif90." + m.String() }

// CxxCompiler is m's C++ compiler wrapper as Debian names it.
func CxxCompiler(m MPI) string { return "mpicxx." + m.String() }

// Title is m's name for people: MPICH, Open MPI.
func Title(m MPI) string {
	if m == OpenMPI {
		return "Open MPI"
	}
	return "MPICH"
}

// BuildTag is the Go build tag the shim is built with for m, "" for the
// default (MPICH).
func BuildTag(m MPI) string {
	if m == OpenMPI {
		return "openmpi"
	}
	return ""
}

// Packages names the Debian packages that provide m, for messages.
func Packages(m MPI) string {
	if m == OpenMPI {
		return "openmpi-bin libopenmpi-dev"
	}
	return "mpich libmpich-dev"
}
