package main

import (
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/wire"
)

// fakeLookup: calls by number, code in three modules by address range,
// communicator 0x44000000 is a world of 4 in order, 0x84000002 holds
// world ranks 3 and 1, 0x84000009 is unknown, 0x8400000a holds
// MPI_UNDEFINED.
var fakeLookup = lookup{
	call: func(id int32) string {
		return map[int32]string{1: "MPI_Recv", 2: "MPI_Waitall", 3: "MPI_Irecv", 4: "MPI_Isend", 5: "MPI_Ibarrier"}[id]
	},
	site: func(pc uint64) checks.Site {
		switch {
		case pc >= 0x7000:
			return checks.Site{Module: "/lib/x86_64-linux-gnu/libc.so.6", Offset: pc - 0x7000}
		case pc >= 0x5000:
			return checks.Site{Module: "/usr/lib/libmpich.so.12", Offset: pc - 0x5000}
		}
		return checks.Site{Module: "/app", Offset: pc}
	},
	group: func(comm uint64) []int {
		return map[uint64][]int{0x44000000: {0, 1, 2, 3}, 0x84000002: {3, 1}, 0x8400000a: {2, -32766}, 0x84000004: {1, 3}}[comm]
	},
	// 0x84000004 is an intercommunicator: peers {1, 3}, members both groups
	members: func(comm uint64) []int {
		return map[uint64][]int{0x44000000: {0, 1, 2, 3}, 0x84000002: {3, 1}, 0x84000004: {0, 1, 2, 3}}[comm]
	},
	commName:  func(comm uint64) string { return map[uint64]string{0x44000000: "MPI_COMM_WORLD"}[comm] },
	winGroup:  func(win uint64) []int { return map[uint64][]int{0xa0000000: {2, 3}}[win] },
	winName:   func(win uint64) string { return map[uint64]string{0xa0000000: "a window of MPI_COMM_WORLD"}[win] },
	worldSize: func() int { return 4 },
	anyTag:    -1,
}

func TestBlockedOf(t *testing.T) {
	r := record{
		seq: 42, call: 2, site: 0x1234, nwait: 17, zero: true, args: "count=5",
		waits: []waitRecord{
			{kind: waitRecv, peer: 1, tag: 7, call: 3, comm: 0x84000002, commID: 9, site: 0x1100},
			{kind: waitRecv, peer: -1, tag: 7, call: 3, comm: 0x84000002, commID: 9},
			{kind: waitRecv, peer: -1, tag: -1, call: 3, comm: 0x44000000, commID: 1},
			{kind: waitSend, peer: 2, tag: 0, call: 4, comm: 0x44000000, commID: 1},
			{kind: waitColl, peer: -1, call: 5, comm: 0x44000000, commID: 1, coll: 3},
			{kind: waitOther, call: 99},
			{kind: waitRecv, peer: 0, comm: 0x84000009, commID: 12},  // not translated
			{kind: waitSend, peer: 5, comm: 0x84000002, commID: 9},   // outside the group
			{kind: waitRecv, peer: -1, comm: 0x8400000a, commID: 13}, // MPI_UNDEFINED in it
			{kind: waitColl, peer: -1, call: 5, win: true, comm: 0xa0000000, commID: 1<<63 | 5, coll: 2},
			{kind: waitSync, peer: 1, call: 5, win: true, comm: 0xa0000000, commID: 1<<63 | 5},
			{kind: waitRecv, peer: 1, tag: 4, call: 3, comm: 0x84000004, commID: 1<<62 | 7},
			{kind: waitColl, peer: -1, call: 5, comm: 0x84000004, commID: 1<<62 | 7, coll: 1},
		},
		frames: []uint64{0x5010, 0x5020, 0x1234, 0x1300, 0x7010, 0x1000},
	}
	got := blockedOf(r, fakeLookup, 150*time.Millisecond)
	want := &wire.Blocked{
		Rank: worldRank(), Seq: 42, Call: "MPI_Waitall", Site: checks.Site{Module: "/app", Offset: 0x1234}, Args: "count=5",
		Mode: wire.And, Truncated: true, ZeroBuffered: true, ForMS: 150,
		Waits: []wire.Wait{
			{Kind: wire.WaitRecv, Ranks: []int{1}, Tag: 7, Call: "MPI_Irecv", Comm: 9, Site: checks.Site{Module: "/app", Offset: 0x1100}},
			{Kind: wire.WaitRecv, Ranks: []int{1, 3}, Any: true, Tag: 7, Call: "MPI_Irecv", Comm: 9}, // a set, sorted
			{Kind: wire.WaitRecv, Ranks: []int{0, 1, 2, 3}, Any: true, Tag: wire.AnyTag, Call: "MPI_Irecv", Comm: 1, CommName: "MPI_COMM_WORLD"},
			{Kind: wire.WaitSend, Ranks: []int{2}, Call: "MPI_Isend", Comm: 1, CommName: "MPI_COMM_WORLD"},
			{Kind: wire.WaitColl, Ranks: []int{0, 1, 2, 3}, Call: "MPI_Ibarrier", Comm: 1, CommName: "MPI_COMM_WORLD", Coll: 3},
			{Kind: wire.WaitOther},
			{Kind: wire.WaitRecv, Comm: 12},
			{Kind: wire.WaitSend, Comm: 9},
			{Kind: wire.WaitRecv, Any: true, Comm: 13},
			{Kind: wire.WaitColl, Ranks: []int{2, 3}, Call: "MPI_Ibarrier", Comm: 1<<63 | 5, CommName: "a window of MPI_COMM_WORLD", Coll: 2},
			{Kind: wire.WaitSync, Ranks: []int{3}, Call: "MPI_Ibarrier", Comm: 1<<63 | 5, CommName: "a window of MPI_COMM_WORLD"},
			{Kind: wire.WaitRecv, Ranks: []int{3}, Tag: 4, Call: "MPI_Irecv", Comm: 1<<62 | 7},              // a remote rank
			{Kind: wire.WaitColl, Ranks: []int{0, 1, 2, 3}, Call: "MPI_Ibarrier", Comm: 1<<62 | 7, Coll: 1}, // both groups
		},
		Stack: []checks.Site{{Module: "/app", Offset: 0x1234}, {Module: "/app", Offset: 0x1300}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// a send whose receiver took the message waits for nobody: an
	// MPI_Sendrecv is left waiting for its receive
	r.nwait, r.waits = 2, []waitRecord{
		{kind: waitSend, peer: 2, tag: 1, call: 4, comm: 0x44000000, commID: 1, taken: true},
		{kind: waitRecv, peer: 1, tag: 3, call: 3, comm: 0x44000000, commID: 1},
	}
	if b := blockedOf(r, fakeLookup, 0); b.Truncated || len(b.Waits) != 1 || b.Waits[0].Kind != wire.WaitRecv {
		t.Errorf("a taken send: got truncated %v, waits %+v, want the receive alone", b.Truncated, b.Waits)
	}
	r.or, r.nwait, r.waits = true, 0, nil
	if b := blockedOf(r, fakeLookup, 0); b.Mode != wire.Or || b.Truncated || b.Waits != nil {
		t.Errorf("OR without waits: got mode %s, truncated %v, waits %v", b.Mode, b.Truncated, b.Waits)
	}
}

func TestStackOf(t *testing.T) {
	tests := []struct {
		frames []uint64
		site   uint64
		want   []uint64
	}{
		{[]uint64{0x5000, 0x100, 0x200, 0x7000, 0x300}, 0x100, []uint64{0x100, 0x200}},
		{[]uint64{0x5000, 0x100, 0x200}, 0x999, []uint64{0x5000, 0x100, 0x200}}, // the site is not in it: all
		{nil, 0x100, nil},
	}
	for _, tt := range tests {
		var want []checks.Site
		for _, pc := range tt.want {
			want = append(want, fakeLookup.site(pc))
		}
		if got := stackOf(tt.frames, tt.site, fakeLookup.site); !reflect.DeepEqual(got, want) {
			t.Errorf("%#x from %#x: got %v, want %v", tt.frames, tt.site, got, want)
		}
	}
}

func TestCstringN(t *testing.T) {
	for _, tt := range []struct {
		in   []byte
		want string
	}{
		{[]byte("dest=1\x00junk"), "dest=1"},
		{[]byte("no terminator"), "no terminator"},
		{[]byte{0}, ""},
	} {
		if got := cstringN(unsafe.Pointer(&tt.in[0]), len(tt.in)); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestPoller: a loop that only tests waits from its first look; one that
// computes between tests (a tenth of the time inside them) never does;
// tests that stop coming end the wait; a new episode starts afresh.
func TestPoller(t *testing.T) {
	const ms = int64(time.Millisecond)
	var p poller
	// spinning: 90% inside the tests, looks 25 ms apart
	c := pollTimes{start: 1000 * ms, last: 1000 * ms}
	for i := 1; i <= 8; i++ {
		c.now = c.start + int64(i)*25*ms
		c.last, c.in = c.now-ms, c.in+22*ms
		waiting, from := p.look(1, c)
		if !waiting || from != c.start {
			t.Fatalf("look %d: waiting %v from %d, want from the start %d", i, waiting, from, c.start)
		}
	}
	// one look descheduled outside the tests: the share over the last
	// looks still says waiting
	c.now += 25 * ms
	if waiting, _ := p.look(1, c); !waiting {
		t.Errorf("one quiet look ended the wait")
	}
	// no test for longer than pollStale: not polling any more
	c.now += int64(pollStale) + ms
	c.in += 10 * ms
	if waiting, _ := p.look(1, c); waiting {
		t.Errorf("no test for %v: still waiting", pollStale)
	}
	// computing: a test every 10 ms, 1 ms inside
	p = poller{}
	c = pollTimes{start: 5000 * ms, last: 5000 * ms}
	for i := 1; i <= 40; i++ {
		c.now = c.start + int64(i)*25*ms
		c.last, c.in = c.now-5*ms, c.in+5*ms/2
		if waiting, _ := p.look(2, c); waiting {
			t.Fatalf("look %d: a loop that computes waits", i)
		}
	}
	// a test under way counts as inside
	c.enter = c.last + ms
	c.now = c.enter + 400*ms
	if waiting, _ := p.look(2, c); !waiting {
		t.Errorf("a test under way for 400 ms: not waiting")
	}
}
