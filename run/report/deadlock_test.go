package report

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/checks/deadlock"
	"github.com/mpidbg/mpidbg/wire"
)

// clock is a settable time for a Collector.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func blockedRecv(rank, from int, zero bool) wire.Message {
	return wire.Message{Kind: wire.KindBlocked, Blocked: &wire.Blocked{
		Rank: rank, Seq: 10, Call: "MPI_Recv", Args: fmt.Sprintf("source=%d, tag=0, comm=MPI_COMM_WORLD", from),
		Site: checks.Site{Module: "/bin/app", Offset: 200 + 2*uint64(rank)}, Mode: wire.And,
		Waits: []wire.Wait{{Kind: wire.WaitRecv, Ranks: []int{from}, Call: "MPI_Irecv", Comm: 1, CommName: "MPI_COMM_WORLD",
			Site: checks.Site{Module: "/bin/app", Offset: 300}}},
		Stack: []checks.Site{
			{Module: "/lib/libmpich.so", Offset: 0x99},         // inside MPI: dropped
			{Module: "/bin/app", Offset: 200 + 2*uint64(rank)}, // the call
			{Module: "/proc/self/exe", Offset: 400},            // its caller
		},
		ZeroBuffered: zero, ForMS: 100,
	}}
}

func TestCollectorState(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	c := NewCollector()
	c.Clock = clk.now
	c0, c1, c2 := c.Conn(), c.Conn(), c.Conn()
	c0.Handle(hello(0, 100))
	c1.Handle(hello(1, 101))
	c2.Handle(hello(2, 102))
	clk.t = clk.t.Add(time.Second)
	c0.Handle(blockedRecv(0, 1, false))
	c1.Handle(blockedRecv(0, 1, false)) // names another rank: ignored
	c1.Malformed(errors.New("wire: malformed message: x"))
	c2.Handle(bye(2, 0))

	if got, want := c.Summary(), (Summary{Size: 4, Ranks: 3, Blocked: 1, Ended: 1, Changed: clk.t}); got != want {
		t.Errorf("summary: got %+v, want %+v", got, want)
	}
	st := c.State()
	if !st.Changed.Equal(clk.t) {
		t.Errorf("changed %v, want %v", st.Changed, clk.t)
	}
	r0 := st.Ranks[0]
	if r0.Blocked == nil || r0.Blocked.Call != "MPI_Recv" || !r0.Since.Equal(clk.t.Add(-100*time.Millisecond)) {
		t.Errorf("rank 0: blocked %+v since %v; want MPI_Recv since 100 ms before it arrived", r0.Blocked, r0.Since)
	}
	if st.Ranks[1].Blocked != nil || !st.Ranks[2].Bye {
		t.Errorf("rank 1 blocked %+v (want nil), rank 2 bye %v (want true)", st.Ranks[1].Blocked, st.Ranks[2].Bye)
	}
	got := st.DeadlockRanks()
	want := []deadlock.Rank{
		{Rank: 0, State: deadlock.Blocked, Call: "MPI_Recv", Args: "source=1, tag=0, comm=MPI_COMM_WORLD",
			Waits: []deadlock.Wait{{Kind: deadlock.Recv, Ranks: []int{1}, Call: "MPI_Irecv", Comm: 1, CommName: "MPI_COMM_WORLD"}}},
		{Rank: 1, State: deadlock.Running},
		{Rank: 2, State: deadlock.Finished},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DeadlockRanks:\ngot  %+v\nwant %+v", got, want)
	}

	c0.Handle(wire.Message{Kind: wire.KindUnblocked, Unblocked: &wire.Unblocked{Rank: 0, Seq: 10}})
	c1.End(errors.New("connection reset by peer"))
	if got := c.Summary(); got.Ranks != 3 || got.Blocked != 0 || got.Ended != 2 {
		t.Errorf("summary after unblocked and end: %+v", got)
	}
	c0.Handle(hello(0, 100)) // connected again: counted once, running
	if got := c.Summary(); got.Ranks != 3 || got.Blocked != 0 || got.Ended != 2 {
		t.Errorf("summary after a second hello: %+v", got)
	}
	st = c.State()
	if st.Ranks[0].Blocked != nil || !st.Ranks[1].Closed {
		t.Errorf("after unblocked and end: rank 0 blocked %+v, rank 1 closed %v", st.Ranks[0].Blocked, st.Ranks[1].Closed)
	}
	if got := st.DeadlockRanks()[1].State; got != deadlock.Dead {
		t.Errorf("rank 1 ended without bye: got state %v, want Dead", got)
	}

	anon := c.Conn()
	anon.Handle(blockedRecv(5, 1, false))
	for range 5 {
		anon.Malformed(errors.New("bad"))
	}
	r := Build(c, Job{}, nil)
	wantNotes := []string{
		"rank 1 sent a blocked message for rank 0, ignored",
		"rank 1 sent a line that is not a message, ignored: wire: malformed message: x",
		"rank 0 connected twice (pids 100 and 100)",
		"a connection sent blocked before it said which rank it is",
		"a connection that has not said which rank it is sent a line that is not a message, ignored: bad",
		"a connection that has not said which rank it is sent a line that is not a message, ignored: bad",
		"a connection that has not said which rank it is sent a line that is not a message, ignored: bad",
		"rank 1: connection lost: connection reset by peer",
	}
	if !slices.Equal(r.Notes, wantNotes) {
		t.Errorf("notes:\ngot  %q\nwant %q", r.Notes, wantNotes)
	}
}

// headToHead is a job where ranks 0 and 1 both receive first.
func headToHead(t *testing.T, zero bool) (*Collector, JobState, deadlock.Result) {
	t.Helper()
	c := NewCollector()
	for rank := range 2 {
		cn := c.Conn()
		h := hello(rank, 100+rank)
		h.Hello.Exe = "/bin/app"
		cn.Handle(h)
		cn.Handle(blockedRecv(rank, 1-rank, zero && rank == 1))
	}
	st := c.State()
	res := deadlock.Analyse(st.DeadlockRanks())
	if len(res.Deadlocked) != 2 {
		t.Fatalf("analysis: %+v", res)
	}
	return c, st, res
}

func TestDeadlockFinding(t *testing.T) {
	c, st, res := headToHead(t, false)
	f := DeadlockFinding(res, st, false)
	c.AddJobFinding(f)
	r := Build(c, Job{Size: 2}, fakeResolver{})
	if len(r.Findings) != 1 {
		t.Fatalf("got %d findings, want 1", len(r.Findings))
	}
	got := r.Findings[0]
	if got.ID != "deadlock" || got.Severity != checks.SevError || got.Category != checks.CatDeadlock || !slices.Equal(got.Ranks, []int{0, 1}) || got.Call != "MPI_Recv" {
		t.Errorf("got %s %s %s %v %s", got.ID, got.Severity, got.Category, got.Ranks, got.Call)
	}
	wantMsg := "ranks 0,1 can never continue (a cycle: rank 0 → rank 1 → rank 0): " +
		"rank 0 MPI_Recv(source=1, tag=0, comm=MPI_COMM_WORLD) waits for rank 1; rank 1 MPI_Recv(source=0, tag=0, comm=MPI_COMM_WORLD) waits for rank 0"
	if got.Message != wantMsg {
		t.Errorf("message:\ngot  %s\nwant %s", got.Message, wantMsg)
	}
	if got.Location.Line != 100 {
		t.Errorf("location %v, want rank 0's call at line 100", got.Location)
	}
	var rel []string
	for _, x := range got.Related {
		rel = append(rel, fmt.Sprintf("%s @ %s", x.Message, x.Location))
	}
	wantRel := []string{
		"rank 0 MPI_Recv(source=1, tag=0, comm=MPI_COMM_WORLD) waits for rank 1 @ /src/app.c:100 in main",
		"rank 0 frame #1 @ /src/app.c:200 in main",
		"rank 0 waits for the MPI_Irecv started here @ /src/app.c:150 in main",
		"rank 1 MPI_Recv(source=0, tag=0, comm=MPI_COMM_WORLD) waits for rank 0 @ /src/app.c:101 in main",
		"rank 1 frame #1 @ /src/app.c:200 in main",
		"rank 1 waits for the MPI_Irecv started here @ /src/app.c:150 in main",
	}
	if !slices.Equal(rel, wantRel) {
		t.Errorf("related:\ngot  %q\nwant %q", rel, wantRel)
	}
	if f.Related[1].Site.Module != "/bin/app" {
		t.Errorf("a frame in /proc/self/exe: got module %q, want the program's path", f.Related[1].Site.Module)
	}
}

func TestPotentialDeadlock(t *testing.T) {
	_, st, res := headToHead(t, true)
	for _, tt := range []struct {
		zero bool
		id   string
		sev  checks.Severity
	}{{false, "deadlock", checks.SevError}, {true, "potential-deadlock", checks.SevWarning}} {
		f := DeadlockFinding(res, st, tt.zero)
		if f.ID != tt.id || f.Severity != tt.sev {
			t.Errorf("zero buffering %v: got %s %s, want %s %s", tt.zero, f.ID, f.Severity, tt.id, tt.sev)
		}
		if tt.zero != strings.HasPrefix(f.Message, "with standard-mode sends unbuffered (--buffering=zero), ") {
			t.Errorf("zero buffering %v: message %q", tt.zero, f.Message)
		}
	}
	if f := DeadlockFinding(deadlock.Result{}, st, false); f.ID != "" {
		t.Errorf("no deadlock: got %+v", f)
	}
}

// TestDeadlockFindingLong: a ring of 20 ranks spells out 8 edges and
// says where the rest are.
func TestDeadlockFindingLong(t *testing.T) {
	c := NewCollector()
	for rank := range 20 {
		cn := c.Conn()
		cn.Handle(hello(rank, 100+rank))
		cn.Handle(blockedRecv(rank, (rank+19)%20, false))
	}
	st := c.State()
	res := deadlock.Analyse(st.DeadlockRanks())
	f := DeadlockFinding(res, st, false)
	if n := strings.Count(f.Message, " waits for "); n != 8 || !strings.HasSuffix(f.Message, "; 12 more in the related locations") {
		t.Errorf("got %d edges in the message: %s", n, f.Message)
	}
	if !strings.HasPrefix(f.Message, "ranks 0-19 can never continue (a cycle: rank 0 → rank 19 → rank 18") {
		t.Errorf("message: %s", f.Message)
	}
}

// TestEndedJob: ranks whose connections end after the launcher ended the
// job died of that; a rank that died before did not.
func TestEndedJob(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	c := NewCollector()
	c.Clock = clk.now
	var conns []*Conn
	for rank := range 4 {
		cn := c.Conn()
		cn.Handle(hello(rank, 100+rank))
		conns = append(conns, cn)
	}
	conns[0].End(nil) // died by itself
	clk.t = clk.t.Add(time.Second)
	c.EndedJob("deadlock")
	clk.t = clk.t.Add(time.Second)
	conns[1].End(nil)
	conns[2].End(nil)
	c.ProcessStatus(102, "node1", "signal 15") // Hydra passed the SIGTERM on
	c.ProcessStatus(103, "node1", "signal 11")
	conns[3].End(nil)
	r := Build(c, Job{Size: 4}, nil)
	want := []Death{{Ranks: []int{0}}, {Ranks: []int{1, 2}, Status: "ended by mpidbg: deadlock"}, {Ranks: []int{3}, Status: "signal 11"}}
	if !reflect.DeepEqual(r.Died, want) {
		t.Errorf("died:\ngot  %+v\nwant %+v", r.Died, want)
	}
}

// TestDeadlockFindingMany: 100 ranks in MPI_Barrier, one elsewhere: the
// ranks share one interned set, and the related locations stop at
// maxRelatedRanks ranks, the cycle's first.
func TestDeadlockFindingMany(t *testing.T) {
	const n = 100
	c := NewCollector()
	world := make([]int, n)
	for i := range world {
		world[i] = i
	}
	for rank := range n {
		cn := c.Conn()
		cn.Handle(hello(rank, 100+rank))
		if rank == n-1 {
			cn.Handle(blockedRecv(rank, 0, false))
			continue
		}
		// each message decodes into a slice of its own
		cn.Handle(wire.Message{Kind: wire.KindBlocked, Blocked: &wire.Blocked{Rank: rank, Seq: 4, Call: "MPI_Barrier", Mode: wire.And,
			Site:  checks.Site{Module: "/bin/app", Offset: 500},
			Waits: []wire.Wait{{Kind: wire.WaitColl, Ranks: wire.MakeRanks(world), Call: "MPI_Barrier", Comm: 1, CommName: "MPI_COMM_WORLD", Coll: 1}}}})
	}
	st := c.State()
	a, b := st.Ranks[3].Blocked.Waits[0].Ranks, st.Ranks[4].Blocked.Waits[0].Ranks
	if &a[0] != &b[0] {
		t.Errorf("ranks 3 and 4 hold two copies of one set of ranks")
	}
	res := deadlock.Analyse(st.DeadlockRanks())
	f := DeadlockFinding(res, st, false)
	if !strings.HasPrefix(f.Message, "ranks 0-99 can never continue (a cycle: rank 0 → rank 99 → rank 0): rank 0 MPI_Barrier waits for rank 99 (collective 1 on MPI_COMM_WORLD); rank 99 MPI_Recv") {
		t.Errorf("message: %s", f.Message)
	}
	last := f.Related[len(f.Related)-1]
	if last.Message != "36 more deadlocked ranks not listed" {
		t.Errorf("last related: %+v", last)
	}
	if !strings.HasPrefix(f.Related[1].Message, "rank 99 MPI_Recv") {
		t.Errorf("the cycle's ranks do not come first: %+v", f.Related[:2])
	}
}
