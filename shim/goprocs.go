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
// spin looking for work on cores the ranks need. Measured on a 2-core
// machine, `mpidbg run` of 4 MPICH ranks that only start and end took
// 19.6-23.8 ms per rank more than plain mpiexec with Go's default and
// 7.5-10.8 ms with one P (docs/DESIGN-SCALE.md). So the runtime runs on
// one P, and on Go's default once the program runs threads that call MPI
// at once (MPI_THREAD_MULTIPLE), which may all call into Go together. A
// GOMAXPROCS the user set is left as it is.
func init() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// goProcsForThreads gives the runtime its default Ps once MPI_Init has
// said the program's threads call MPI at once.
func goProcsForThreads() {
	if C.mpidbg_mt != 0 && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.NumCPU())
	}
}
