package wire

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
)

func TestBlockedRoundTrip(t *testing.T) {
	msgs := []Message{
		{Kind: KindBlocked, Blocked: &Blocked{
			Rank: 2, Seq: 42, Call: "MPI_Waitall", Site: checks.Site{Module: "/a", Offset: 0x11a9},
			Args: "count=2, array_of_requests=0x7ffc", Mode: And,
			Waits: []Wait{
				{Kind: WaitRecv, Ranks: []int{0, 1, 3}, Any: true, Tag: AnyTag, Call: "MPI_Irecv", Comm: 1, CommName: "MPI_COMM_WORLD", Site: checks.Site{Module: "/a", Offset: 0x1100}},
				{Kind: WaitSend, Ranks: []int{1}, Tag: 7, Call: "MPI_Isend", Comm: 5},
				{Kind: WaitColl, Ranks: []int{0, 1, 2, 3}, Call: "MPI_Ibarrier", Comm: 1, Coll: 3},
				{Kind: WaitOther},
			},
			Truncated:    true,
			Stack:        []checks.Site{{Module: "/a", Offset: 0x11a9}, {Module: "/a", Offset: 0x1250}},
			ZeroBuffered: true, ForMS: 120,
		}},
		{Kind: KindUnblocked, Unblocked: &Unblocked{Rank: 2, Seq: 42}},
		{Kind: KindStop, Stop: &Stop{Why: "deadlock"}},
		{Kind: KindConfirm, Confirm: &Confirm{Seq: 42, Probe: 3}},
		{Kind: KindConfirmed, Confirmed: &Confirmed{Rank: 2, Seq: 42, Probe: 3, Still: true}},
		{Kind: KindBlocked, Blocked: &Blocked{Rank: 0, Seq: 2, Call: "MPI_Recv", Mode: Or}}, // no waits: nothing known
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, m := range msgs {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&buf)
	for i, want := range msgs {
		got, err := r.Read()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("message %d:\ngot  %+v\nwant %+v", i, got, want)
		}
	}
}

func TestBlockedMalformed(t *testing.T) {
	for _, in := range []string{
		`{"kind":"blocked"}`,
		`{"kind":"unblocked","blocked":{"mode":"and"}}`,
		`{"kind":"stop"}`,
		`{"kind":"confirm","confirmed":{"seq":4}}`,
		`{"kind":"confirmed"}`,
		`{"kind":"blocked","blocked":{"mode":"xor"}}`,
		`{"kind":"blocked","blocked":{"mode":"and","waits":[{"kind":"teleport"}]}}`,
		`{"kind":"blocked","blocked":{"mode":"and","waits":[{"kind":"recv","ranks":"all"}]}}`,
	} {
		_, err := NewReader(strings.NewReader(in + "\n")).Read()
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: got %v, want ErrMalformed", in, err)
		}
	}
}

// TestMalformedThenGood: a bad line does not spoil the next one, so a
// reader may note it and go on.
func TestMalformedThenGood(t *testing.T) {
	r := NewReader(strings.NewReader(`{"kind":"blocked","blocked":{"mode":"?"}}` + "\n" + `{"kind":"unblocked","unblocked":{"rank":1,"seq":4}}` + "\n"))
	if _, err := r.Read(); !errors.Is(err, ErrMalformed) {
		t.Fatalf("first: got %v, want ErrMalformed", err)
	}
	m, err := r.Read()
	if err != nil || m.Unblocked == nil || *m.Unblocked != (Unblocked{Rank: 1, Seq: 4}) {
		t.Errorf("second: got %+v, %v", m, err)
	}
}
