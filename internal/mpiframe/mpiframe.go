// Package mpiframe decides which frame of a stopped thread's stack is the
// program's MPI call: the MPI_* function the program called, and the
// program's frame that called it, past the frames of the shim (C, Go and
// cgo's glue) and of the MPI library.
//
// The rule is needed in two places that speak different protocols: the
// DAP server (package dap) reads stacks from gdb/MI, and the gdb
// extension (Python, inside gdb) walks gdb's frames and asks the helper
// (package extensions/gdb/helper, op "caller"). Both describe a frame as
// a Frame and call Find, so the rule is written once. It lives in a leaf
// package of its own, with no dependencies, so that neither side links
// the other's code: dap need not link the helper's registry decoders, nor
// the helper the MI parser.
package mpiframe

import (
	"path/filepath"
	"regexp"
	"strings"
)

// Frame is what a debugger tells of one frame.
type Frame struct {
	Func string // the function's name as gdb prints it; "" or "??" when unknown
	File string // its source file; "" without debug information
	Lib  string // the shared library its pc is in (a path or a base name); "" for the executable or unknown
}

var (
	// MPI's functions and the shim's: the MPI interface and its profiling
	// twin, MPICH's (MPIR_, MPID_, MPIDI_...) and Open MPI's (ompi_,
	// opal_, mca_) internals, the shim's C (mpidbg_*) and its Go code
	// (runtime.*, a package path such as internal/..., cgo's glue).
	internalFunc = regexp.MustCompile(`^(P?MPI_|PMPI|MPI[RDLX]|MPII|MPIU|MPL_|mpidbg|ompi_|opal_|mca_|_?pmpi|runtime\.|internal/|_cgo|crosscall)`)
	// An MPI function a program calls: MPI_Send, PMPI_Send, MPI_Type_vector.
	callFunc = regexp.MustCompile(`^P?MPI_[A-Z][A-Za-z_0-9]*$`)
	// The Fortran bindings' entry points, as gfortran names them: mpi_send_
	// (mpif.h and the mpi module), mpi_send_f08_ and MPICH's mpi_send_f08ts_
	// (the mpi_f08 module, choice buffers by descriptor).
	fortranFunc = regexp.MustCompile(`^p?mpi_([a-z][a-z0-9_]*?)(_f08ts|_f08)?_$`)
	// The libraries of MPI, its Fortran bindings (the list of shim/fortran.c),
	// its transports and the shim.
	internalLib = regexp.MustCompile(`^lib(mpidbg|mpi|pmpi|mpich|mpifort|mpichfort|mpi_mpifh|mpi_usempif08|mpi_usempi_ignore_tkr|mpi_usempi|open-pal|open-rte|ucp|ucs|uct|fabric)\b`)
)

// IsCall tells whether name is an MPI function a program calls (MPI_Send,
// PMPI_Send, or a Fortran binding's mpi_send_).
func IsCall(name string) bool { return callFunc.MatchString(name) || fortranFunc.MatchString(name) }

// IsFortran tells whether name is a Fortran binding's entry point
// (mpi_send_, mpi_send_f08_, mpi_send_f08ts_): the C call it makes, with
// the arguments in C form, is a frame further in.
func IsFortran(name string) bool { return fortranFunc.MatchString(name) }

// Internal tells whether f is MPI's or the shim's, not the program's.
func Internal(f Frame) bool {
	if internalFunc.MatchString(f.Func) || Go(f) {
		return true
	}
	return f.Lib != "" && internalLib.MatchString(filepath.Base(f.Lib))
}

// Go tells whether f is the shim's Go code, its runtime, or cgo's glue.
// Only Go names hold a '/' (a package path such as
// internal/runtime/syscall/linux) or start with "runtime."; only the shim
// is written in Go in an MPI program; and the shim's library is
// libmpidbg.so or libmpidbg-<mpi>.so (gdb names the library of a frame
// without debug information, the source file of one with).
func Go(f Frame) bool {
	fn := f.Func
	switch {
	case strings.HasPrefix(fn, "runtime.") || strings.Contains(fn, "/"):
		return true
	case fn == "crosscall1" || fn == "crosscall2" || strings.HasPrefix(fn, "_cgo_") || strings.HasPrefix(fn, "x_cgo_"):
		return true
	case strings.HasSuffix(f.File, ".go"):
		return true
	}
	return strings.HasPrefix(filepath.Base(f.Lib), "libmpidbg")
}

// Find looks through stack, innermost frame first, for the program's MPI
// call: the first MPI function frame (IsCall) whose caller, the next
// frame, is not Internal. It returns that frame's index (the caller's is
// one more), or -1 when there is none. The pairs are looked at one by
// one, so a long stack can be given in pieces that overlap by a frame.
func Find(stack []Frame) int {
	for i := 0; i+1 < len(stack); i++ {
		// a Fortran entry point's name is the program's to take too
		// (subroutine mpi_setup): only a binding library's counts
		if IsCall(stack[i].Func) && !Internal(stack[i+1]) && (!IsFortran(stack[i].Func) || Internal(stack[i])) {
			return i
		}
	}
	return -1
}

// ArgsFrame is the frame that holds the arguments of the MPI call Find
// found at i: i itself, or for a Fortran binding's entry point the C
// call the binding makes, further in (its arguments in C form, and with
// debug information in the shim's wrapper). Frames before i that stack
// does not hold leave it at i.
func ArgsFrame(stack []Frame, i int) int {
	if i < 0 || i >= len(stack) || !IsFortran(stack[i].Func) {
		return i
	}
	for j := i - 1; j >= 0; j-- {
		if IsCall(stack[j].Func) && !IsFortran(stack[j].Func) {
			return j
		}
	}
	return i
}
