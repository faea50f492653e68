package main

/*
#include "shim.h"
*/
import "C"

import (
	"os"
	"runtime"
)

// The shim's Go runtime lives in every rank beside the program's own
// threads and does little: a finding, a look at the blocked-call record
// every 25 ms, the launcher's connection, a question the C side's caches
// could not answer. With a P per core (Go's default), a call from C into
// Go or a goroutine made ready wakes the runtime's idle Ps, whose threads
// spin looking for work on cores the ranks need; measured in
// docs/DESIGN-SCALE.md, "The shim's Go runtime: one P". So the runtime
// runs on one P, and on Go's default once the program runs threads that
// call MPI at once (MPI_THREAD_MULTIPLE, which mpi4py asks for unless told
// otherwise), which may all call into Go together. A GOMAXPROCS the user
// set is left as it is.

// oneP: the runtime was put on one P here, not by the user's GOMAXPROCS.
var oneP bool

func init() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
		oneP = true
	}
}

// goProcsForThreads gives the runtime Go's default, a P per core, once
// MPI_Init has said the program's threads call MPI at once.
func goProcsForThreads() {
	if oneP && C.mpidbg_mt != 0 {
		runtime.GOMAXPROCS(runtime.NumCPU())
	}
}
