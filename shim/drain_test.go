package main

import (
	"io"
	"net"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestDrain: drain returns once the launcher has read what the rank
// sent, not before.
func TestDrain(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	raw, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	l := &launcher{conn: c, raw: raw}
	msg := []byte("a finding the launcher has yet to read\n")
	if _, err := l.Write(msg); err != nil {
		t.Fatal(err)
	}
	var reading atomic.Bool
	go func() {
		// late enough that a drain that did not wait returns first
		time.Sleep(100 * time.Millisecond)
		reading.Store(true) // the bytes cannot leave the queue before this
		io.ReadFull(srv, make([]byte, len(msg)))
	}()
	l.drain()
	if !reading.Load() {
		t.Errorf("drain returned before the launcher read what was sent")
	}

	// a launcher that stops reading holds the rank no longer than drainLimit
	if _, err := l.Write(msg); err != nil {
		t.Fatal(err)
	}
	l.drain()
}
