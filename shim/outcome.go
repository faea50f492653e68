package main

/*
#include <stdint.h>
*/
import "C"

import (
	"syscall"

	"github.com/mpidbg/mpidbg/wire"
)

// How the rank ends, told to the launcher: MPI_Abort from ending.c, and
// the descriptor crash.c writes a fatal signal's message on.

// mpidbg_go_abort sends Abort: the program calls MPI_Abort with code on
// comm (in words) at site.
//
//export mpidbg_go_abort
func mpidbg_go_abort(code C.int32_t, comm *C.char, pc C.uint64_t) {
	defer func() { _ = recover() }()
	launch.mu.Lock()
	defer launch.mu.Unlock()
	launch.send(wire.Message{Kind: wire.KindAbort, Abort: &wire.Abort{
		Rank: worldRank(), Code: int(code), Comm: C.GoString(comm), Site: site(uint64(pc)),
	}})
}

// mpidbg_go_report_drain waits until the launcher has read what this
// rank sent it (launcher.drain): the rank is about to end the job.
//
//export mpidbg_go_report_drain
func mpidbg_go_report_drain() {
	defer func() { _ = recover() }()
	launch.drain()
}

// mpidbg_go_fatal sends Fatal (fatal.c): the rank goes on into call at
// pc, where it reported the error id, under the handler named handler,
// which ends the job; left: the call returned after all.
//
//export mpidbg_go_fatal
func mpidbg_go_fatal(id, call, handler *C.char, pc C.uint64_t, left C.int) {
	defer func() { _ = recover() }()
	launch.mu.Lock()
	defer launch.mu.Unlock()
	f := &wire.Fatal{Rank: worldRank(), Left: left != 0}
	if !f.Left {
		f.Call, f.ID, f.Handler, f.Site = C.GoString(call), C.GoString(id), C.GoString(handler), site(uint64(pc))
	}
	launch.send(wire.Message{Kind: wire.KindFatal, Fatal: f})
}

// How exit() was reached, as ending.c's exit_site says.
const (
	exitCall     = 0 // exit() at site
	exitReturned = 1 // main returned
	exitUnknown  = 2 // the stack did not say
	exitMPI      = 3 // the MPI library called exit() (a fatal MPI error)
)

// mpidbg_go_exit sends Exit: the process exits with status after
// MPI_Init without MPI_Finalize, reached as how says (exit() at site for
// exitCall).
//
//export mpidbg_go_exit
func mpidbg_go_exit(status C.int32_t, pc C.uint64_t, how C.int) {
	defer func() { _ = recover() }()
	launch.mu.Lock()
	defer launch.mu.Unlock()
	x := &wire.Exit{Rank: worldRank(), Status: int(status)}
	switch how {
	case exitCall:
		x.Site = site(uint64(pc))
	case exitReturned:
		x.Returned = true
	case exitMPI:
		x.ByMPI = true
	}
	launch.send(wire.Message{Kind: wire.KindExit, Exit: x})
}

// mpidbg_go_report_fd returns a copy of the launcher connection's
// descriptor (close-on-exec) for crash.c, which cannot call Go from a
// signal handler; -1 without a connection. A copy: the connection's own
// may be closed and its number reused while the handler holds it.
//
//export mpidbg_go_report_fd
func mpidbg_go_report_fd() (fd C.int) {
	fd = -1
	defer func() { _ = recover() }()
	launch.mu.Lock()
	defer launch.mu.Unlock()
	if launch.raw == nil {
		return -1
	}
	launch.raw.Control(func(f uintptr) {
		nfd, _, e := syscall.Syscall(syscall.SYS_FCNTL, f, syscall.F_DUPFD_CLOEXEC, 0)
		if e == 0 {
			fd = C.int(nfd)
		}
	})
	return fd
}
