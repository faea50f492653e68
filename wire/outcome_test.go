package wire

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestCrashFromHandler: a Crash as the shim's signal handler writes it
// (shim/crash.c: a newline first, fields in this order) decodes, and the
// empty line before it is no message.
func TestCrashFromHandler(t *testing.T) {
	in := `{"kind":"bye","bye":{"rank":1,"findings":0}}` + "\n" +
		"\n" + `{"kind":"crash","crash":{"rank":1,"pid":42,"signal":11,"code":1,"addr":0,"stack":[{"module":"/tmp/a \"b\"","offset":4534},{"offset":140737}]}}` + "\n"
	r := NewReader(strings.NewReader(in))
	if m, err := r.Read(); err != nil || m.Kind != KindBye {
		t.Fatalf("first: %+v, %v", m, err)
	}
	m, err := r.Read()
	if err != nil || m.Kind != KindCrash {
		t.Fatalf("second: %+v, %v", m, err)
	}
	c := m.Crash
	if c.Rank != 1 || c.PID != 42 || c.Signal != 11 || c.Code != 1 || len(c.Stack) != 2 || c.Stack[0].Module != `/tmp/a "b"` || c.Stack[0].Offset != 4534 || c.Stack[1].Offset != 140737 {
		t.Errorf("got %+v", *c)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Errorf("end: %v", err)
	}
	if _, err := NewReader(strings.NewReader(`{"kind":"abort"}` + "\n")).Read(); err == nil {
		t.Error("an abort without its body was read")
	}
}

// TestFatal: a Fatal and its Left decode with their fields; a "fatal"
// without its body is malformed.
func TestFatal(t *testing.T) {
	in := `{"kind":"fatal","fatal":{"rank":0,"call":"MPI_Send","id":"invalid-rank","handler":"MPI_ERRORS_ARE_FATAL","site":{"module":"/a","offset":64}}}` + "\n" +
		`{"kind":"fatal","fatal":{"rank":0,"call":"MPI_Send","id":"invalid-rank","handler":"MPI_ERRORS_ARE_FATAL","site":{"module":"/a","offset":64},"left":true}}` + "\n"
	r := NewReader(strings.NewReader(in))
	m, err := r.Read()
	if err != nil || m.Kind != KindFatal {
		t.Fatalf("first: %+v, %v", m, err)
	}
	if f := m.Fatal; f.Call != "MPI_Send" || f.ID != "invalid-rank" || f.Handler != "MPI_ERRORS_ARE_FATAL" || f.Site.Offset != 64 || f.Left {
		t.Errorf("got %+v", *f)
	}
	if m, err = r.Read(); err != nil || !m.Fatal.Left {
		t.Errorf("second: %+v, %v", m, err)
	}
	if _, err := NewReader(strings.NewReader(`{"kind":"fatal"}` + "\n")).Read(); !errors.Is(err, ErrMalformed) {
		t.Errorf("a fatal without its body: %v", err)
	}
}
