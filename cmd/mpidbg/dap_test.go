package main

import (
	"bufio"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/internal/envvar"
)

// TestDapArgs: mpidbg dap refuses what it cannot serve safely.
func TestDapArgs(t *testing.T) {
	ext, _ := filepath.Abs("../../extensions/gdb")
	t.Setenv(envvar.GdbExt, ext)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"dap", "extra"}, "takes no arguments"},
		{[]string{"dap", "--listen", "0.0.0.0:4711"}, "only a loopback address"},
		{[]string{"dap", "--listen", "192.168.1.1:4711"}, "only a loopback address"},
		{[]string{"dap", "--listen", "4711"}, "want HOST:PORT"},
		{[]string{"dap", "--listen", "localhost:99999"}, "the port must be a number from 0 to 65535"},
		{[]string{"dap", "--listen", "localhost:http"}, "the port must be a number from 0 to 65535"},
		{[]string{"dap", "--gdb", "/nonexistent/gdb"}, "not found"},
	} {
		_, stderr, code := runArgs(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("mpidbg %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}

// TestDapListen: --listen serves one client on loopback TCP.
func TestDapListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ext, _ := filepath.Abs("../../extensions/gdb")
	t.Setenv(envvar.GdbExt, ext)
	done := make(chan int, 1)
	errOut := &strings.Builder{}
	go func() { done <- run([]string{"dap", "--listen", addr}, io.Discard, errOut) }()
	var c net.Conn
	for i := 0; i < 100; i++ {
		if c, err = net.Dial("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("dial %s: %v (exit %d, stderr %q)", addr, err, <-done, errOut.String())
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	for seq, cmd := range []string{"initialize", "disconnect"} {
		req := `{"seq":` + string(rune('1'+seq)) + `,"type":"request","command":"` + cmd + `","arguments":{"adapterID":"test"}}`
		if err := dap.WriteBaseMessage(c, []byte(req)); err != nil {
			t.Fatal(err)
		}
		m, err := dap.ReadProtocolMessage(r)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if resp, ok := m.(dap.ResponseMessage); !ok || !resp.GetResponse().Success {
			t.Fatalf("%s: %#v", cmd, m)
		}
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("mpidbg dap --listen: exit %d, stderr %q", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Errorf("mpidbg dap --listen did not end after disconnect")
	}
}
