package dap

import (
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/wire"
)

// TestRemoteRanksAdmit: the listener ranks on other hosts connect to
// answers a connection with the session's token and a well-formed hello
// with the session's answer and hands it on; it says "refused" to, and
// closes, one without the token, with a wrong one, with a malformed
// hello, and one more than the ranks it waits for; each refusal is
// counted.
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
		b, err := io.ReadAll(c)
		if err != nil || !strings.HasPrefix(string(b), "refused: ") {
			t.Errorf("%s: read %q, %v; want a refusal, then the end", what, b, err)
		}
		c.Close()
	}
	wrong := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	closed(dial("hello\n"), "no token")
	closed(dial(wrong+"\n2 4242 node2\n"), "a wrong token")
	closed(dial(string(wire.TokenLine(rr.token))+"two 4242\n"), "a malformed hello")

	good := dial(string(wire.TokenLine(rr.token)) + "2 4242 node2\n+$qSupported#00")
	defer good.Close()
	answer := make([]byte, wire.TokenLen+1)
	if _, err := io.ReadFull(good, answer); err != nil || string(answer) != rr.answer+"\n" {
		t.Errorf("the admitted rank got %q, %v; want the session's answer", answer, err)
	}
	if rr.Secret() != rr.token+":"+rr.answer || rr.token == rr.answer {
		t.Errorf("Secret %q: want the token and a different answer", rr.Secret())
	}
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

// TestRemoteRanksAddr: "listen" with the reports' port leaves that port
// to them, and a wildcard address is given to the ranks as this
// machine's host name.
func TestRemoteRanksAddr(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	rr, err := listenRemote(taken.Addr().String(), t.TempDir(), 1, t.Logf)
	if err != nil {
		t.Fatalf("listen on the reports' address: %v", err)
	}
	if rr.Addr() == taken.Addr().String() {
		t.Errorf("the debugger's address %s is the reports'", rr.Addr())
	}
	rr.Close()
	host, _ := os.Hostname()
	rr, err = listenRemote("0.0.0.0", t.TempDir(), 1, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	if h, _, _ := net.SplitHostPort(rr.Addr()); h != host {
		t.Errorf("listen 0.0.0.0: the ranks are told %s, want this machine's name %s", rr.Addr(), host)
	}
}
