package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A rank must not outlive mpidbg: mpiexec gets SIGTERM when mpidbg dies
// (run/launch's Pdeathsig), but a launcher that cannot pass it on, or
// that was itself killed, would leave the ranks running, blocked in MPI
// for ever. So a rank that said Hello ends itself when mpidbg is gone
// before the rank said Bye. Never while mpidbg lives: over a Unix socket
// the rank knows mpidbg's pid (SO_PEERCRED) and ends only once that
// process is gone, whatever happened to the connection; over TCP (mpidbg
// on another host) a connection that mpidbg's side closed, or reset,
// before Bye is taken for mpidbg's end.

// peerGrace is how long a rank that lost mpidbg waits before it ends
// itself: mpiexec's own SIGTERM, which ends it the ordinary way, comes
// first when mpiexec can send it.
const peerGrace = time.Second

// peerEvery is how often a rank whose connection closed, with mpidbg
// alive, looks at it again.
const peerEvery = 100 * time.Millisecond

// peer is the process at the other end of a Unix connection.
type peer struct {
	pid   int
	start string // its start time in /proc/PID/stat: a pid can be reused
}

// peerOf reads the pid of conn's other end; the zero peer when it is
// not a Unix socket or the pid is not visible in this pid namespace.
func peerOf(raw syscall.RawConn) peer {
	var p peer
	raw.Control(func(fd uintptr) {
		cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if err == nil && cred.Pid > 0 {
			p.pid = int(cred.Pid)
		}
	})
	if p.pid != 0 {
		st, ok := procStat(p.pid)
		if !ok {
			return peer{}
		}
		p.start = st.start
	}
	return p
}

type procInfo struct {
	state byte
	start string
}

// procStat reads the state and start time of pid from /proc/PID/stat
// (fields 3 and 22; the command name before them is in parentheses and
// may hold anything).
func procStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procInfo{}, false
	}
	return procInfo{state: f[0][0], start: f[19]}, true
}

// alive reports whether the peer process still runs: it exists, is the
// same process, and is not a zombie (dead, not yet reaped).
func (p peer) alive() bool {
	st, ok := procStat(p.pid)
	return ok && st.start == p.start && st.state != 'Z' && st.state != 'X'
}

// lostLauncher is called when the reader of the launcher's commands ends
// with err. It returns once it is sure mpidbg lives on; when mpidbg is
// gone, it ends the rank.
func (l *launcher) lostLauncher(err error) {
	l.mu.Lock()
	said, p, lost := l.said, l.peer, l.lost
	l.mu.Unlock()
	if said {
		return
	}
	if p.pid != 0 {
		for p.alive() {
			time.Sleep(peerEvery)
			l.mu.Lock()
			said = l.said
			l.mu.Unlock()
			if said {
				return
			}
		}
	} else if !closedByPeer(err) && !closedByPeer(lost) {
		return // the rank let go of a launcher that did not read: slow, not gone
	}
	time.Sleep(peerGrace)
	l.mu.Lock()
	said = l.said
	l.mu.Unlock()
	if said {
		return
	}
	fmt.Fprintf(os.Stderr, "mpidbg: %s: mpidbg is gone (its connection closed before MPI_Finalize): the rank ends (SIGKILL)\n", who())
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

// closedByPeer reports whether err says the other end closed or reset
// the connection (not this rank, and not a timeout).
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
