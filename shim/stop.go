package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"github.com/mpidbg/mpidbg/wire"
)

// commands reads what the launcher sends on conn until it closes: Stop
// stops the rank for a debugger, Confirm is answered (confirm.go),
// Refused gives the connection up; kinds this rank does not know (from a
// newer launcher) are ignored. When the connection ends, the rank
// checks that mpidbg still lives (peer.go).
func (l *launcher) commands(conn net.Conn) {
	defer func() { _ = recover() }()
	r := wire.NewReader(conn)
	for {
		m, err := r.Read()
		if errors.Is(err, wire.ErrMalformed) {
			continue
		}
		if err != nil {
			l.lostLauncher(err) // ends the rank should mpidbg be gone (peer.go)
			return
		}
		if m.Kind == wire.KindStop {
			stopForDebugger(m.Stop.Why)
		}
		if m.Kind == wire.KindConfirm {
			go l.confirm(conn, *m.Confirm)
		}
		if m.Kind == wire.KindRefused {
			l.refusedBy(m.Refused.Why) // not mpidbg's end: no lostLauncher
			return
		}
	}
}

// prSetPtracer and prSetPtracerAny let any process of the user attach
// (Yama's ptrace_scope 1 allows only ancestors otherwise).
const (
	prSetPtracer    = 0x59616d61
	prSetPtracerAny = ^uintptr(0)
)

// stopForDebugger says how to attach, then stops the whole process
// (every thread) with SIGSTOP; a debugger, or SIGCONT, resumes it.
func stopForDebugger(why string) {
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetPtracer, prSetPtracerAny, 0)
	host, _ := os.Hostname()
	pid := os.Getpid()
	if why == "" {
		why = "asked by mpidbg"
	}
	fmt.Fprintf(os.Stderr, "mpidbg: rank %d (pid %d on %s) stopped (%s): attach with gdb -p %d; resume with kill -CONT %d\n",
		worldRank(), pid, host, why, pid, pid)
	syscall.Kill(pid, syscall.SIGSTOP)
}
