// Package checks is where every finding mpidbg reports is defined, once:
// its catalogue entry (a stable id, a category, a severity, the MPI rule
// it enforces and the documentation `mpidbg explain` prints) and the
// function that writes its message from a detector's Event. Each family
// of findings has its file (args.go, datatypes.go, requests.go, leaks.go,
// overlap.go, topology.go, typematch.go, collective.go, messages.go,
// bufferrace.go, rmarace.go, deadlock.go), in the spirit of go/analysis's one analyzer
// per file; docs/adding-a-check.md is the way to add one.
//
// The detectors live where the facts are: in the shim's C code inside
// every rank (which fills struct mpidbg_ev, the C twin of Event, whose
// enums shim/gen generates from the tables in event.go) and in mpidbg run
// (deadlocks). Describe turns an Event into a finding's text; the Finding
// type is what every part of mpidbg passes around. The package does no
// I/O.
package checks
