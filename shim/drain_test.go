package main

import (
	"io"
	"sync/atomic"
	"testing"
	"time"
)

// TestDrain: drain returns once the launcher has read what the rank
// sent, not before.
func TestDrain(t *testing.T) {
	c, srv, raw := unixConn(t)
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
}
