// Command shim is lib/libmpidbg.so, the PMPI interposition library for
// MPICH, built with
//
//	go build -buildmode=c-shared -o lib/libmpidbg.so ./shim
//
// The C files define the MPI functions (wrappers_gen.c from calls.tbl,
// plus the hand-written ones), keep the registry (reg.h) and run the
// cheap checks; the Go files are the engine the C side calls when it
// needs the datatype model, a finding's text and element path, or the
// launcher connection. docs/shim.md describes the design.
package main

/*
#cgo CFLAGS: -O2 -Wall -Wno-unused-function
#cgo !openmpi CFLAGS: -I/usr/include/x86_64-linux-gnu/mpich
#cgo !openmpi LDFLAGS: -lmpich
#cgo openmpi CFLAGS: -I/usr/lib/x86_64-linux-gnu/openmpi/include
#cgo openmpi LDFLAGS: -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi
#cgo LDFLAGS: -ldl
#include "engine.h"
*/
import "C"

func main() {}
