package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/wire"
)

// writeTimeout bounds one message: a launcher that stops reading must not
// stop the rank. After a failed write the rank reports to standard error.
const (
	dialTimeout  = 2 * time.Second
	writeTimeout = 2 * time.Second
)

// launch is the rank's side of the wire protocol: a Hello at MPI_Init, a
// Finding per finding, a Bye at MPI_Finalize; findings go to standard
// error, one line each, when MPIDBG_REPORT is unset or the launcher is
// gone.
var launch launcher

type launcher struct {
	mu    sync.Mutex
	conn  net.Conn
	raw   syscall.RawConn
	w     *wire.Writer
	sent  int
	where string // MPIDBG_REPORT, for the message when it fails
	// For a rank that must not outlive mpidbg (peer.go): the process at
	// the other end of a Unix connection, why the rank gave the
	// connection up, and whether it said Bye.
	peer peer
	lost error
	said bool
	// refused: the launcher turned the connection away (wire.Refused):
	// it lives, and the rank reports to standard error.
	refused bool
}

func (l *launcher) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	addr := os.Getenv(envvar.Report)
	// The job's token is this process's alone: a program it starts (an
	// MPI program of its own, which the preloaded shim would connect
	// too) must not pass for one of the job's ranks.
	token := os.Getenv(envvar.Token)
	os.Unsetenv(envvar.Token)
	if addr == "" || spawned() {
		// a spawned process is not one of the job's ranks (spawn.c): it
		// reports on standard error
		return
	}
	l.where = addr
	network, a, ok := strings.Cut(addr, ":")
	if !ok || (network != "unix" && network != "tcp") {
		fmt.Fprintf(os.Stderr, "mpidbg: %s: %s=%q is not unix:/path or tcp:host:port; findings go to standard error\n", who(), envvar.Report, addr)
		return
	}
	c, err := net.DialTimeout(network, a, dialTimeout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpidbg: %s: cannot reach the launcher at %s (%v); findings go to standard error\n", who(), addr, err)
		return
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		c.Close()
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		c.Close()
		return
	}
	l.conn, l.raw = c, raw
	if network == "unix" {
		l.peer = peerOf(raw)
	}
	if token != "" {
		// first, before anything else: the launcher reads nothing from a
		// connection without it (wire/token.go)
		if _, err := l.Write(wire.TokenLine(token)); err != nil {
			fmt.Fprintf(os.Stderr, "mpidbg: %s: lost the launcher at %s (%v); findings go to standard error\n", who(), addr, err)
			c.Close()
			l.conn, l.raw = nil, nil
			return
		}
	}
	l.w = wire.NewWriter(l)
	host, _ := os.Hostname()
	exe, _ := os.Executable()
	if l.send(wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{
		Version: wire.Version, Rank: worldRank(), Size: int(mpiWorldSize()), PID: os.Getpid(),
		Host: host, Exe: exe, MPI: thisMPI().String(),
	}}) {
		go l.watch(c) // the deadlock detector's eyes (watch.go)
		go l.commands(c)
	}
}

// Write sends p on the launcher connection with MSG_NOSIGNAL (a closed
// connection is an error, not a SIGPIPE) and a deadline.
func (l *launcher) Write(p []byte) (int, error) {
	if err := l.conn.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return 0, err
	}
	n := 0
	var werr error
	err := l.raw.Write(func(fd uintptr) bool {
		for n < len(p) {
			k, e := syscall.SendmsgN(int(fd), p[n:], nil, nil, syscall.MSG_NOSIGNAL)
			switch {
			case errors.Is(e, syscall.EINTR):
				continue
			case errors.Is(e, syscall.EAGAIN):
				return false
			case e != nil:
				werr = e
				return true
			}
			n += k
		}
		return true
	})
	if werr != nil {
		err = werr
	}
	return n, err
}

// send writes m, or gives the connection up; under l.mu.
func (l *launcher) send(m wire.Message) bool {
	if l.w == nil {
		return false
	}
	if err := l.w.Write(m); err != nil {
		l.lost = err
		fmt.Fprintf(os.Stderr, "mpidbg: %s: lost the launcher at %s (%v); findings go to standard error\n", who(), l.where, err)
		l.conn.Close()
		l.conn, l.raw, l.w = nil, nil, nil
		return false
	}
	return true
}

// refusedBy gives up a connection the launcher turned away.
func (l *launcher) refusedBy(why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused = true
	fmt.Fprintf(os.Stderr, "mpidbg: %s: the launcher at %s refused the connection (%s); findings go to standard error\n", who(), l.where, why)
	if l.conn != nil {
		l.conn.Close()
		l.conn, l.raw, l.w = nil, nil, nil
	}
}

func (l *launcher) finding(f checks.Finding) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent++
	if l.send(wire.Message{Kind: wire.KindFinding, Finding: &f}) {
		return
	}
	fmt.Fprintln(os.Stderr, stderrLine(f))
}

// note tells the launcher something about how this rank is checked;
// without a launcher it goes to standard error.
func (l *launcher) note(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.send(wire.Message{Kind: wire.KindNote, Note: &wire.Note{Text: text}}) {
		return
	}
	fmt.Fprintf(os.Stderr, "mpidbg: %s: note: %s\n", who(), text)
}

// drainLimit bounds drain: a launcher that stops reading must not hold
// the rank.
const drainLimit = 500 * time.Millisecond

// drain waits, at most drainLimit, until the launcher has read all this
// rank sent: the socket's send queue is empty (SIOCOUTQ; on a Unix
// socket the bytes leave it when the launcher reads them, on TCP when
// its host acknowledges them). A rank calls it before it ends the job
// (MPI_Abort, MPI's fatal handler): the launcher then holds the rank's
// last words, and knows that the rank ends the job, before mpiexec's
// account of the end reaches it through the ranks' daemons.
func (l *launcher) drain() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.raw == nil {
		return
	}
	for end := time.Now().Add(drainLimit); time.Now().Before(end); time.Sleep(200 * time.Microsecond) {
		queued, err := 0, error(nil)
		if cerr := l.raw.Control(func(fd uintptr) { queued, err = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) }); cerr != nil || err != nil || queued == 0 {
			return
		}
	}
}

func (l *launcher) bye(findings int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.said = true // from now on the connection may close: the rank is done with mpidbg
	if l.send(wire.Message{Kind: wire.KindBye, Bye: &wire.Bye{Rank: worldRank(), Findings: l.sent}}) {
		l.conn.Close()
		l.conn, l.raw, l.w = nil, nil, nil
	}
	_ = findings
}

// stderrLine is a finding on one line, with its place resolved from the
// module's DWARF when it can be:
//
//	mpidbg: rank 0: error type-not-committed: MPI_Send: ... at app.c:12 in main (/abs/app+0x11a9)
func stderrLine(f checks.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mpidbg: %s: %s %s: %s", who(), f.Severity, f.ID, f.Message)
	if f.Path != "" {
		fmt.Fprintf(&b, " [element %s]", f.Path)
	}
	b.WriteString(" " + placeOf(f.Site))
	for _, r := range f.Related {
		fmt.Fprintf(&b, "; %s %s", r.Message, placeOf(r.Site))
	}
	return b.String()
}

func placeOf(s checks.Site) string {
	raw := fmt.Sprintf("(%s+%#x)", s.Module, s.Offset)
	if s.Script != (checks.Location{}) {
		if s.Module == "" {
			return "at " + s.Script.String()
		}
		return "at " + s.Script.String() + " " + raw // a Python script's call and the native caller
	}
	if s.Module == "" {
		return raw
	}
	if loc, ok := resolve(s); ok {
		if loc.File == "" {
			return loc.String() + " " + raw // "in main"
		}
		return "at " + loc.String() + " " + raw
	}
	return raw
}
