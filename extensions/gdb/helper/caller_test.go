package helper

import (
	"strings"
	"testing"
)

// TestCaller: the caller op answers from the frames alone, without a
// registry, reading no memory.
func TestCaller(t *testing.T) {
	m, _ := exampleImage()
	g := startGDB(t, m)
	r := g.send(`{"id":1,"op":"caller","args":{"frames":[` +
		`{"func":"mpidbg_break","file":"finding.c"},{"func":"MPI_Isend","file":"wrappers.c","lib":"/opt/mpidbg/lib/libmpidbg.so"},` +
		`{"func":"main","file":"errors.c"}]}}`)
	if !r.OK || string(r.Value) != `{"args":1,"callee":1,"caller":2}` || r.Text != "frame 1, MPI_Isend, called from frame 2, main" {
		t.Errorf("got %+v", r)
	}
	r = g.send(`{"id":2,"op":"caller","args":{"frames":[{"func":"poll"},{"func":"main"}]}}`)
	if !r.OK || string(r.Value) != "null" {
		t.Errorf("no MPI call: got %+v", r)
	}
	r = g.send(`{"id":3,"op":"caller","args":{}}`)
	if r.OK || !strings.Contains(r.Error, "missing argument frames") {
		t.Errorf("no frames: got %+v", r)
	}
	if g.reads != 0 {
		t.Errorf("%d memory reads, want none", g.reads)
	}
}
