package launch

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/mpidbg/mpidbg/wire"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func hello(rank, size int) wire.Message {
	return wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: rank, Size: size, PID: 5000 + rank, Host: "remote-node-1"}}
}

func recvFrom(rank, from int, tag int) wire.Message {
	return wire.Message{Kind: wire.KindBlocked, Blocked: &wire.Blocked{Rank: rank, Seq: 2, Call: "MPI_Recv", Mode: wire.And, ForMS: 100,
		Waits: []wire.Wait{{Kind: wire.WaitRecv, Ranks: []int{from}, Tag: tag, Comm: 1}}}}
}

func sendTo(rank, to int, tag int) wire.Message {
	return wire.Message{Kind: wire.KindBlocked, Blocked: &wire.Blocked{Rank: rank, Seq: 2, Call: "MPI_Send", Mode: wire.And, ForMS: 100, ZeroBuffered: true,
		Waits: []wire.Wait{{Kind: wire.WaitSend, Ranks: []int{to}, Tag: tag, Comm: 1}}}}
}

// TestDetector walks a job through states on a clock of its own: the
// detector speaks only when every live rank is blocked, the timeout has
// passed since the last change, and the graph has no way out.
func TestDetector(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	col := report.NewCollector()
	col.Clock = clk.now
	d := &detector{col: col, size: 3, timeout: 2 * time.Second, zero: true}
	later := func(dt time.Duration) time.Time { clk.t = clk.t.Add(dt); return clk.t }
	expect := func(what string, want bool) found {
		t.Helper()
		f, ok := d.check(clk.t)
		if ok != want {
			t.Fatalf("%s: got deadlock %v, want %v (%+v)", what, ok, want, f.finding)
		}
		return f
	}

	conns := []*report.Conn{col.Conn(), col.Conn(), col.Conn()}
	conns[0].Handle(hello(0, 3))
	conns[1].Handle(hello(1, 3))
	conns[0].Handle(recvFrom(0, 1, 0))
	conns[1].Handle(recvFrom(1, 0, 0))
	later(time.Minute)
	expect("rank 2 has not connected", false)

	conns[2].Handle(hello(2, 3))
	later(time.Minute)
	expect("rank 2 runs", false)

	conns[2].Handle(wire.Message{Kind: wire.KindBye, Bye: &wire.Bye{Rank: 2}})
	later(time.Second)
	expect("within the timeout", false)
	later(time.Second)
	f := expect("stopped for the timeout", true)
	if f.finding.ID != "deadlock" || len(f.finding.Ranks) != 2 || f.result.Describe() != "a cycle: rank 0 → rank 1 → rank 0" {
		t.Errorf("got %s %v %s", f.finding.ID, f.finding.Ranks, f.result.Describe())
	}
	expect("the same state again", false)

	// A send that only zero buffering blocked, into the same cycle.
	conns[1].Handle(wire.Message{Kind: wire.KindUnblocked, Unblocked: &wire.Unblocked{Rank: 1, Seq: 2}})
	later(time.Minute)
	expect("rank 1 runs again", false)
	conns[1].Handle(sendTo(1, 0, 5))
	later(3 * time.Second)
	if f := expect("send against receive with another tag", true); f.finding.ID != "potential-deadlock" {
		t.Errorf("got %s, want potential-deadlock", f.finding.ID)
	}

	// Matching send and receive both blocked: a slow transfer.
	conns[0].Handle(wire.Message{Kind: wire.KindUnblocked, Unblocked: &wire.Unblocked{Rank: 0, Seq: 2}})
	conns[0].Handle(recvFrom(0, 1, 5))
	later(time.Minute)
	expect("a transfer in progress", false)
}

// TestDetectorStuck: every rank in the same collective is a match for
// the graph, slow rather than stuck; once they reported a collective
// mismatch at that call, the job is stuck there.
func TestDetectorStuck(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	col := report.NewCollector()
	col.Clock = clk.now
	d := &detector{col: col, size: 2, timeout: 2 * time.Second}
	site := checks.Site{Module: "/bin/app", Offset: 77}
	gather := func(rank int) wire.Message {
		return wire.Message{Kind: wire.KindBlocked, Blocked: &wire.Blocked{Rank: rank, Seq: 6, Call: "MPI_Gather", Site: site, Mode: wire.And,
			ForMS: 100, Waits: []wire.Wait{{Kind: wire.WaitColl, Ranks: []int{0, 1}, Call: "MPI_Gather", Comm: 1, Coll: 3}}}}
	}
	conns := []*report.Conn{col.Conn(), col.Conn()}
	for i, cn := range conns {
		cn.Handle(hello(i, 2))
		cn.Handle(gather(i))
	}
	clk.t = clk.t.Add(time.Minute)
	if f, ok := d.check(clk.t); ok {
		t.Fatalf("all in the same collective: got %+v", f)
	}
	// the same calls, reported mismatched by rank 1
	conns[1].Handle(wire.Message{Kind: wire.KindUnblocked, Unblocked: &wire.Unblocked{Rank: 1, Seq: 6}})
	conns[1].Handle(wire.Message{Kind: wire.KindFinding, Finding: &checks.Finding{ID: "collective-root-mismatch",
		Severity: checks.SevError, Call: "MPI_Gather", Site: site, Message: "m"}})
	conns[1].Handle(gather(1))
	clk.t = clk.t.Add(time.Second)
	if _, ok := d.check(clk.t); ok {
		t.Fatalf("within the timeout of the finding: stuck")
	}
	clk.t = clk.t.Add(time.Second)
	f, ok := d.check(clk.t)
	if !ok || f.why() != "collective-root-mismatch" || f.finding.ID != "" {
		t.Fatalf("got %v %q %q, want stuck at collective-root-mismatch", ok, f.why(), f.finding.ID)
	}
	if want := "rank 1 cannot leave the call where it reported collective-root-mismatch"; f.text() != want {
		t.Errorf("got %q, want %q", f.text(), want)
	}
}

// asker is a detector on a clock of its own, with size ranks connected
// to its collector, whose questions are recorded.
type asker struct {
	t     *testing.T
	clk   *clock
	d     *detector
	conns []*report.Conn
	ranks []int          // who was asked, in order
	asked []wire.Confirm // what
}

func newAsker(t *testing.T, size int) *asker {
	a := &asker{t: t, clk: &clock{t: time.Unix(1000, 0)}}
	col := report.NewCollector()
	col.Clock = a.clk.now
	a.d = &detector{col: col, size: size, timeout: 2 * time.Second, send: func(rank int, m wire.Message) error {
		a.ranks = append(a.ranks, rank)
		a.asked = append(a.asked, *m.Confirm)
		return nil
	}}
	for range size {
		a.conns = append(a.conns, col.Conn())
	}
	return a
}

// answer has rank answer q: in call seq now, still blocked or not.
func (a *asker) answer(rank int, q wire.Confirm, seq uint64, still bool) {
	a.conns[rank].Handle(wire.Message{Kind: wire.KindConfirmed, Confirmed: &wire.Confirmed{Rank: rank, Seq: seq, Probe: q.Probe, Still: still}})
}

// check looks at the job after dt and wants a report or not.
func (a *asker) check(what string, dt time.Duration, want bool) found {
	a.t.Helper()
	a.clk.t = a.clk.t.Add(dt)
	f, ok := a.d.check(a.clk.t)
	if ok != want {
		a.t.Fatalf("%s: got a report %v, want %v (%+v)", what, ok, want, f.finding)
	}
	return f
}

// TestDetectorAsks: a deadlock is reported only once every rank in it
// has confirmed that it is still in the call it was asked about. A rank
// whose call is over, or that could not tell (a thread of it got no
// CPU), is asked again after the timeout; after maxUnsure answers that it
// could not tell about one state the deadlock is reported all the same.
// A change of state drops the question; an answer to an earlier question
// counts for nothing, even when it comes last.
func TestDetectorAsks(t *testing.T) {
	a := newAsker(t, 2)
	for i, cn := range a.conns {
		cn.Handle(hello(i, 2))
		cn.Handle(recvFrom(i, 1-i, 0))
	}
	// latest is the question asked last, which must be new and to both.
	n := 0
	latest := func(what string) wire.Confirm {
		t.Helper()
		if len(a.asked) != n+2 || a.ranks[n]+a.ranks[n+1] != 1 || a.asked[n].Probe != a.asked[n+1].Probe || a.asked[n].Seq != 2 ||
			(n > 0 && a.asked[n].Probe == a.asked[n-1].Probe) {
			t.Fatalf("%s: asked %v %+v, want a new question to ranks 0 and 1 about call 2", what, a.ranks[n:], a.asked[n:])
		}
		n += 2
		return a.asked[n-1]
	}
	a.check("asked, no answer yet", 3*time.Second, false)
	first := latest("the first question")
	a.answer(0, first, 2, true)
	a.check("one answer of two, however long", time.Minute, false)
	a.answer(1, first, 2, false) // kept off the CPU: not yet
	a.check("a rank could not tell", 0, false)
	if len(a.asked) != n {
		t.Fatalf("asked again at once: %+v", a.asked)
	}
	a.check("within the timeout of the answer", time.Second, false)
	a.check("asked again", time.Second, false)
	second := latest("the second question")
	a.answer(0, second, 2, true)
	a.answer(1, second, 0, false) // its call returned, its Unblocked on the way
	a.check("a call is over", 0, false)
	a.check("asked again after the timeout", 2*time.Second, false)
	third := latest("the third question")
	a.answer(0, third, 2, true)
	a.answer(1, third, 2, true)
	a.answer(0, first, 2, true) // late, for the first question
	a.answer(1, first, 2, true)
	if f := a.check("both confirmed, late answers to the first after them", 0, true); len(f.unsure) != 0 {
		t.Errorf("unsure %v, want none", f.unsure)
	}

	// A question under way is dropped when a rank's call returns.
	a.conns[0].Handle(wire.Message{Kind: wire.KindUnblocked, Unblocked: &wire.Unblocked{Rank: 0, Seq: 2}})
	a.conns[0].Handle(recvFrom(0, 1, 0))
	a.check("a new state, asked", 3*time.Second, false)
	fourth := latest("the fourth question")
	a.conns[1].Handle(wire.Message{Kind: wire.KindUnblocked, Unblocked: &wire.Unblocked{Rank: 1, Seq: 2}})
	a.answer(0, fourth, 2, true)
	a.answer(1, fourth, 2, true)
	a.check("rank 1 left its call while asked", 0, false)

	// A rank whose call is over, whatever number of times, is no
	// deadlock, and such answers are not counted as unsure ones.
	a.conns[1].Handle(recvFrom(1, 0, 0))
	for range maxUnsure + 2 {
		a.check("asked", 3*time.Second, false)
		q := latest("a question to a rank whose call is over")
		a.answer(0, q, 2, true)
		a.answer(1, q, 0, false)
		a.check("its call is over", 0, false)
	}
	a.check("asked", 3*time.Second, false)
	q := latest("a question after the calls that were over")
	a.answer(0, q, 2, true)
	a.answer(1, q, 2, false)
	a.check("the first answer that it could not tell", 0, false)

	// A rank that never can tell, about one state: reported unconfirmed
	// after maxUnsure more questions; an unsure answer about an earlier
	// state does not count.
	a.conns[1].Handle(recvFrom(1, 0, 0))
	for i := 0; i <= maxUnsure; i++ {
		a.check("asked", 3*time.Second, false)
		q := latest("a question to a starved rank")
		a.answer(0, q, 2, true)
		a.answer(1, q, 2, false)
		if i < maxUnsure {
			a.check("not yet", 0, false)
		}
		if i == 0 { // a new state: what was unsure starts again
			a.conns[1].Handle(wire.Message{Kind: wire.KindUnblocked, Unblocked: &wire.Unblocked{Rank: 1, Seq: 2}})
			a.conns[1].Handle(recvFrom(1, 0, 0))
			a.check("asked about the new state", 3*time.Second, false)
			q := latest("a question to a starved rank")
			a.answer(0, q, 2, true)
			a.answer(1, q, 2, false)
			a.check("not yet", 0, false)
		}
	}
	if f := a.check("asked often enough", 0, true); len(f.unsure) != 1 || f.unsure[0] != 1 {
		t.Errorf("unsure %v, want rank 1", f.unsure)
	}
}

// TestDetectorAsksOnlyWhoCanAnswer: a rank whose shim predates the
// question is not waited for.
func TestDetectorAsksOnlyWhoCanAnswer(t *testing.T) {
	a := newAsker(t, 2)
	for i, cn := range a.conns {
		h := hello(i, 2)
		if i == 1 {
			h.Hello.Version = wire.ConfirmVersion - 1
		}
		cn.Handle(h)
		cn.Handle(recvFrom(i, 1-i, 0))
	}
	a.check("asked", 3*time.Second, false)
	if len(a.ranks) != 1 || a.ranks[0] != 0 {
		t.Fatalf("asked %v, want rank 0", a.ranks)
	}
	a.answer(0, a.asked[0], 2, true)
	a.check("rank 0 confirmed, rank 1 cannot be asked", 0, true)
}

// TestDetectorAsksStuck: a job stuck at its errors is ended only once
// every blocked rank confirmed it is still blocked.
func TestDetectorAsksStuck(t *testing.T) {
	a := newAsker(t, 2)
	site := checks.Site{Module: "/bin/app", Offset: 77}
	for i, cn := range a.conns {
		cn.Handle(hello(i, 2))
		if i == 1 {
			cn.Handle(wire.Message{Kind: wire.KindFinding, Finding: &checks.Finding{ID: "collective-root-mismatch",
				Severity: checks.SevError, Call: "MPI_Gather", Site: site, Message: "m"}})
		}
		cn.Handle(wire.Message{Kind: wire.KindBlocked, Blocked: &wire.Blocked{Rank: i, Seq: 6, Call: "MPI_Gather", Site: site, Mode: wire.And,
			ForMS: 100, Waits: []wire.Wait{{Kind: wire.WaitColl, Ranks: []int{0, 1}, Call: "MPI_Gather", Comm: 1, Coll: 3}}}})
	}
	a.check("asked", time.Minute, false)
	if len(a.ranks) != 2 || a.ranks[0] != 0 || a.ranks[1] != 1 {
		t.Fatalf("asked %v, want both blocked ranks", a.ranks)
	}
	for i := range a.conns {
		a.answer(i, a.asked[i], 6, true)
	}
	if f := a.check("both confirmed", 0, true); f.why() != "collective-root-mismatch" {
		t.Fatalf("got %q, want stuck at collective-root-mismatch", f.why())
	}
}

func TestDetectorBlockedSince(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	col := report.NewCollector()
	col.Clock = clk.now
	d := &detector{col: col, size: 1, timeout: 2 * time.Second}
	cn := col.Conn()
	cn.Handle(hello(0, 1))
	clk.t = clk.t.Add(time.Minute)
	m := recvFrom(0, 0, 0)
	m.Blocked.ForMS = 1500 // blocked 1.5 s before the message came
	cn.Handle(m)
	clk.t = clk.t.Add(time.Second)
	if _, ok := d.check(clk.t); !ok {
		t.Errorf("2.5 s after the call began: no deadlock")
	}
}

func TestStopped(t *testing.T) {
	tests := []struct {
		name string
		sum  report.Summary
		size int
		want bool
	}{
		{"all_blocked", report.Summary{Ranks: 2, Blocked: 2}, 2, true},
		{"one_missing", report.Summary{Ranks: 1, Blocked: 1}, 2, false},
		{"one_running", report.Summary{Ranks: 2, Blocked: 1}, 2, false},
		{"finished_and_dead", report.Summary{Ranks: 3, Blocked: 1, Ended: 2}, 3, true},
		{"nobody_left", report.Summary{Ranks: 1, Ended: 1}, 1, false},
		{"size_from_hello", report.Summary{Size: 2, Ranks: 1, Blocked: 1}, 1, false},
		{"no_ranks", report.Summary{}, 0, false},
	}
	for _, tt := range tests {
		if got := tt.sum.Stopped(tt.size); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSendStop: the launcher's command reaches the rank on its report
// connection; a bad line from the rank does not end the connection.
func TestSendStop(t *testing.T) {
	ln, err := ListenUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	col := report.NewCollector()
	ln.Serve(col)
	if err := ln.Send(0, wire.Message{Kind: wire.KindStop, Stop: &wire.Stop{}}); err == nil {
		t.Errorf("Send to a rank not connected: no error")
	}
	c, err := net.Dial("unix", strings.TrimPrefix(ln.Report(), "unix:"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(wire.TokenLine(ln.Token()))
	w := wire.NewWriter(c)
	w.Write(hello(0, 1))
	c.Write([]byte("not a message\n"))
	w.Write(recvFrom(0, 0, 0))
	// The detector's view tells when the listener has read it all.
	deadline := time.Now().Add(10 * time.Second)
	for col.State().Ranks[0].Blocked == nil {
		if time.Now().After(deadline) {
			t.Fatal("the blocked message after a bad line never arrived")
		}
		time.Sleep(10 * time.Millisecond)
	}
	f := found{state: col.State(), finding: checks.Finding{ID: "deadlock", Message: "rank 0 MPI_Recv waits for rank 0"}}
	var out bytes.Buffer
	stopRanks(ln, f, &out)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := wire.NewReader(c).Read()
	if err != nil || m.Kind != wire.KindStop || m.Stop.Why != "deadlock" {
		t.Errorf("the rank read %+v, %v; want stop", m, err)
	}
	if !strings.Contains(out.String(), "rank 0  pid 5000 on remote-node-1:  ssh -t remote-node-1 gdb -p 5000\n") {
		t.Errorf("attach hints:\n%s", out.String())
	}
	ln.Drain(0, 100*time.Millisecond)
	r := report.Build(col, report.Job{}, nil)
	if len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "rank 0 sent a line that is not a message") {
		t.Errorf("notes: %q", r.Notes)
	}
}

func TestKillTree(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	// A parent with a child and a grandchild, like mpiexec, a proxy and a
	// rank.
	cmd := exec.CommandContext(ctx, "sh", "-c", `sh -c 'sleep 300 & echo $! >> `+pids+`; wait' & echo $! >> `+pids+`; wait`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	below := waitPIDs(ctx, t, pids, 2)
	if n := killTree(cmd.Process.Pid); n < 3 {
		t.Errorf("killTree signalled %d processes, want 3", n)
	}
	cmd.Wait()
	for _, p := range below {
		for alive(p) {
			if ctx.Err() != nil {
				t.Fatalf("process %d outlived killTree", p)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestSignalRanks: of the pids it is given, only those below the
// process are signalled: one of its two children here, not the other,
// not the process itself, and neither init nor the test, which are not
// below it.
func TestSignalRanks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pids := filepath.Join(t.TempDir(), "pids")
	cmd := exec.CommandContext(ctx, "sh", "-c", `sleep 300 & echo $! >> `+pids+`; sleep 300 & echo $! >> `+pids+`; wait`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { killTree(cmd.Process.Pid); cmd.Wait() }()
	kids := waitPIDs(ctx, t, pids, 2)
	if n := signalRanks(cmd.Process.Pid, syscall.SIGTERM, map[int]bool{kids[0]: true, 1: true, os.Getpid(): true}); n != 1 {
		t.Errorf("signalRanks signalled %d processes, want 1", n)
	}
	for alive(kids[0]) {
		if ctx.Err() != nil {
			t.Fatalf("process %d outlived its SIGTERM", kids[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !alive(kids[1]) || !alive(cmd.Process.Pid) {
		t.Error("a process that was not named was signalled")
	}
	if n := signalRanks(cmd.Process.Pid, syscall.SIGTERM, nil); n != 0 {
		t.Errorf("signalRanks with no pids signalled %d processes", n)
	}
}

// waitPIDs waits until file holds n pids, one per line, and returns them.
func waitPIDs(ctx context.Context, t *testing.T, file string, n int) []int {
	t.Helper()
	var pids []int
	for len(pids) < n {
		if ctx.Err() != nil {
			t.Fatal("the processes never started")
		}
		b, _ := os.ReadFile(file)
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			p, _ := strconv.Atoi(f)
			pids = append(pids, p)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return pids
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && !strings.HasPrefix(s[i+1:], " Z")
}

func TestParentOf(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		stat string
		want int
		ok   bool
	}{
		{"123 (sh) S 45 123 123 0", 45, true},
		{"123 (a) b) (c) R 7 1 1", 7, true},
		{"123 (x", 0, false},
		{"123 (x) S", 0, false},
	} {
		os.WriteFile(filepath.Join(dir, "stat"), []byte(tt.stat), 0o644)
		if got, ok := parentOf(dir); got != tt.want || ok != tt.ok {
			t.Errorf("%q: got %d %v, want %d %v", tt.stat, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := parentOf(filepath.Join(dir, "none")); ok {
		t.Errorf("no stat file: got ok")
	}
}
