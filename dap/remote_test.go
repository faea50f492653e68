package dap

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/wire"
)

// TestRemoteRanksAdmit: the listener ranks on other hosts connect to
// hands on a connection with the session's token and a well-formed
// hello, and closes, unread beyond the token, one without the token,
// with a wrong one, with a malformed hello, and one more than the ranks
// it waits for; each refusal is counted.
func TestRemoteRanksAdmit(t *testing.T) {
	rr, err := listenRemote("127.0.0.1", t.TempDir(), 1, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	rr.mu.Lock()
	rr.wait = time.Second
	rr.mu.Unlock()
	dial := func(first string) net.Conn {
		c, err := net.Dial("tcp", rr.Addr())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, first); err != nil {
			t.Fatal(err)
		}
		return c
	}
	closed := func(c net.Conn, what string) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := c.Read(make([]byte, 1)); err == nil {
			t.Errorf("%s: the connection is open (read %d bytes)", what, n)
		}
		c.Close()
	}
	wrong := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	closed(dial("hello\n"), "no token")
	closed(dial(wrong+"\n2 4242 node2\n"), "a wrong token")
	closed(dial(string(wire.TokenLine(rr.token))+"two 4242\n"), "a malformed hello")

	good := dial(string(wire.TokenLine(rr.token)) + "2 4242 node2\n+$qSupported#00")
	defer good.Close()
	select {
	case r := <-rr.ranks:
		if r.rank != 2 || r.pid != 4242 || r.host != "node2" {
			t.Errorf("admitted %+v, want rank 2, pid 4242 on node2", r)
		}
		// what follows the hello is gdbserver's, left unread
		b := make([]byte, 15)
		if _, err := io.ReadFull(r.conn, b); err != nil || string(b) != "+$qSupported#00" {
			t.Errorf("after the hello: %q, %v", b, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a rank with the token was not admitted")
	}
	closed(dial(string(wire.TokenLine(rr.token))+"3 4243 node2\n"), "one rank more than the session has")
	if n := rr.Refused(); n != 4 {
		t.Errorf("refused %d connections, want 4", n)
	}
}
