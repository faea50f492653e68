package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	msgs := []Message{
		{Kind: KindHello, Hello: &Hello{Version: Version, Rank: 3, Size: 4, PID: 99, Host: "n1", Exe: "/a", MPI: "mpich"}},
		{Kind: KindFinding, Finding: &checks.Finding{ID: "type-not-committed", Category: checks.CatDatatypeLifecycle, Severity: checks.SevError, Ranks: []int{3}, Call: "MPI_Send", Site: checks.Site{Module: "/a", Offset: 0x1234}}},
		{Kind: KindNote, Note: &Note{Text: "the debug registers are off"}},
		{Kind: KindBye, Bye: &Bye{Rank: 3, Findings: 1}},
	}
	for _, m := range msgs {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&buf)
	for i := range msgs {
		m, err := r.Read()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if m.Kind != msgs[i].Kind {
			t.Errorf("message %d: got kind %s, want %s", i, m.Kind, msgs[i].Kind)
		}
	}
	if f := msgs[1].Finding; f.Site.Offset != 0x1234 {
		t.Errorf("site: got %#x", f.Site.Offset)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Errorf("end: got %v, want io.EOF", err)
	}
}

func TestMalformed(t *testing.T) {
	for _, in := range []string{"not json\n", `{"kind":"finding"}` + "\n", `{"kind":"x","bye":{}}` + "\n", strings.Repeat("x", MaxLine+10)} {
		_, err := NewReader(strings.NewReader(in)).Read()
		if err == nil {
			t.Errorf("%.30q: got no error", in)
		} else if len(in) < MaxLine && !errors.Is(err, ErrMalformed) {
			t.Errorf("%.30q: got %v, want ErrMalformed", in, err)
		}
	}
}
