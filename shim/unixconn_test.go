package main

import (
	"net"
	"path/filepath"
	"syscall"
	"testing"
)

// unixConn is a connected pair of Unix stream sockets, as a rank's
// connection to mpidbg run and the launcher's end of it, with the
// rank's raw socket; the test's cleanup closes them.
func unixConn(t *testing.T) (rank, srv net.Conn, raw syscall.RawConn) {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	rank, err = net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rank.Close() })
	srv, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	raw, err = rank.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rank, srv, raw
}
