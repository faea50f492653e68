package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestPeer: the process at the other end of a Unix connection is known
// by pid and start time, and counts as gone once it exited, even before
// it is reaped, or when its pid now names another process.
func TestPeer(t *testing.T) {
	_, _, raw := unixConn(t)
	self := peerOf(raw)
	if self.pid != os.Getpid() || self.start == "" || !self.alive() {
		t.Fatalf("peerOf a connection to this process: %+v, alive %v; want pid %d, alive", self, self.alive(), os.Getpid())
	}
	if other := (peer{pid: self.pid, start: self.start + "0"}); other.alive() {
		t.Errorf("a reused pid counts as the peer")
	}

	cmd := exec.Command("/bin/true")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	st, ok := procStat(cmd.Process.Pid)
	child := peer{pid: cmd.Process.Pid, start: st.start}
	deadline := time.Now().Add(10 * time.Second)
	for ok && st.state != 'Z' && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		st, ok = procStat(cmd.Process.Pid)
	}
	if child.alive() {
		t.Errorf("an exited, unreaped process (state %c) counts as alive", st.state)
	}
	cmd.Wait()
	if child.alive() {
		t.Errorf("a reaped process counts as alive")
	}
}

// TestClosedByPeer: only the other end's close or reset says the
// launcher is gone; this rank's own close, or a timeout, does not.
func TestClosedByPeer(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{io.EOF, true},
		{fmt.Errorf("wire: %w", syscall.ECONNRESET), true},
		{&net.OpError{Op: "write", Err: &os.SyscallError{Syscall: "sendmsg", Err: syscall.EPIPE}}, true},
		{fmt.Errorf("wire: %w", net.ErrClosed), false},
		{os.ErrDeadlineExceeded, false},
		{nil, false},
		{errors.New("something else"), false},
	} {
		if got := closedByPeer(tt.err); got != tt.want {
			t.Errorf("closedByPeer(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
