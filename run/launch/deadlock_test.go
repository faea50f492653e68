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

// TestDetectorAsks: a deadlock is reported only once every rank in it
// has confirmed that it is still in the call it was asked about. A rank
// that could not tell (a thread of it got no CPU) is asked again after
// the timeout, up to maxUnsure times; a change of state drops the
// question; an answer to an earlier question counts for nothing, even
// when it comes last.
func TestDetectorAsks(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	col := report.NewCollector()
	col.Clock = clk.now
	var asked []wire.Confirm
	var askedRanks []int
	d := &detector{col: col, size: 2, timeout: 2 * time.Second, send: func(rank int, m wire.Message) error {
		askedRanks = append(askedRanks, rank)
		asked = append(asked, *m.Confirm)
		return nil
	}}
	conns := []*report.Conn{col.Conn(), col.Conn()}
	for i, cn := range conns {
		cn.Handle(hello(i, 2))
		cn.Handle(recvFrom(i, 1-i, 0))
	}
	answer := func(rank int, q wire.Confirm, still bool) {
		conns[rank].Handle(wire.Message{Kind: wire.KindConfirmed, Confirmed: &wire.Confirmed{Rank: rank, Seq: q.Seq, Probe: q.Probe, Still: still}})
	}
	check := func(what string, want bool) found {
		t.Helper()
		f, ok := d.check(clk.t)
		if ok != want {
			t.Fatalf("%s: got deadlock %v, want %v (%+v)", what, ok, want, f.finding)
		}
		return f
	}
	// latest is the question asked last, which must be new and to both.
	n := 0
	latest := func(what string) wire.Confirm {
		t.Helper()
		if len(asked) != n+2 || askedRanks[n]+askedRanks[n+1] != 1 || asked[n].Probe != asked[n+1].Probe || asked[n].Seq != 2 ||
			(n > 0 && asked[n].Probe == asked[n-1].Probe) {
			t.Fatalf("%s: asked %v %+v, want a new question to ranks 0 and 1 about call 2", what, askedRanks[n:], asked[n:])
		}
		n += 2
		return asked[n-1]
	}
	clk.t = clk.t.Add(3 * time.Second)
	check("asked, no answer yet", false)
	first := latest("the first question")
	answer(0, first, true)
	clk.t = clk.t.Add(time.Minute)
	check("one answer of two, however long", false)
	answer(1, first, false) // kept off the CPU: not yet
	check("a rank could not tell", false)
	if len(asked) != n {
		t.Fatalf("asked again at once: %+v", asked)
	}
	clk.t = clk.t.Add(time.Second)
	check("within the timeout of the answer", false)
	clk.t = clk.t.Add(time.Second)
	check("asked again", false)
	second := latest("the second question")
	answer(0, second, true)
	answer(1, second, true)
	answer(0, first, true) // late, for the first question
	answer(1, first, true)
	check("both confirmed, late answers to the first after them", true)

	// A question under way is dropped when a rank's call returns.
	conns[0].Handle(wire.Message{Kind: wire.KindUnblocked, Unblocked: &wire.Unblocked{Rank: 0, Seq: 2}})
	conns[0].Handle(recvFrom(0, 1, 0))
	clk.t = clk.t.Add(3 * time.Second)
	check("a new state, asked", false)
	third := latest("the third question")
	conns[1].Handle(wire.Message{Kind: wire.KindUnblocked, Unblocked: &wire.Unblocked{Rank: 1, Seq: 2}})
	answer(0, third, true)
	answer(1, third, true)
	check("rank 1 left its call while asked", false)

	// A rank that never can tell: reported unconfirmed after maxUnsure
	// more questions.
	conns[1].Handle(recvFrom(1, 0, 0))
	for i := 0; i <= maxUnsure; i++ {
		clk.t = clk.t.Add(3 * time.Second)
		check("asked", false)
		q := latest("a question to a starved rank")
		answer(0, q, true)
		answer(1, q, false)
		if i < maxUnsure {
			check("not yet", false)
		}
	}
	if f := check("asked often enough", true); len(f.unsure) != 1 || f.unsure[0] != 1 {
		t.Errorf("unsure %v, want rank 1", f.unsure)
	}
}

// TestDetectorAsksOnlyWhoCanAnswer: a rank whose shim predates the
// question is not waited for.
func TestDetectorAsksOnlyWhoCanAnswer(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	col := report.NewCollector()
	col.Clock = clk.now
	var asked []int
	d := &detector{col: col, size: 2, timeout: 2 * time.Second, send: func(rank int, m wire.Message) error {
		asked = append(asked, rank)
		return nil
	}}
	conns := []*report.Conn{col.Conn(), col.Conn()}
	for i, cn := range conns {
		h := hello(i, 2)
		if i == 1 {
			h.Hello.Version = wire.ConfirmVersion - 1
		}
		cn.Handle(h)
		cn.Handle(recvFrom(i, 1-i, 0))
	}
	clk.t = clk.t.Add(3 * time.Second)
	if _, ok := d.check(clk.t); ok || len(asked) != 1 || asked[0] != 0 {
		t.Fatalf("got deadlock %v, asked %v; want rank 0 asked", ok, asked)
	}
	conns[0].Handle(wire.Message{Kind: wire.KindConfirmed, Confirmed: &wire.Confirmed{Rank: 0, Seq: 2, Probe: 1, Still: true}})
	if _, ok := d.check(clk.t); !ok {
		t.Fatalf("rank 0 confirmed, rank 1 cannot be asked: no deadlock")
	}
}

// TestDetectorAsksStuck: a job stuck at its errors is ended only once
// every blocked rank confirmed it is still blocked.
func TestDetectorAsksStuck(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	col := report.NewCollector()
	col.Clock = clk.now
	var asked []int
	var probe uint64
	d := &detector{col: col, size: 2, timeout: 2 * time.Second, send: func(rank int, m wire.Message) error {
		asked = append(asked, rank)
		probe = m.Confirm.Probe
		return nil
	}}
	site := checks.Site{Module: "/bin/app", Offset: 77}
	conns := []*report.Conn{col.Conn(), col.Conn()}
	for i, cn := range conns {
		cn.Handle(hello(i, 2))
		if i == 1 {
			cn.Handle(wire.Message{Kind: wire.KindFinding, Finding: &checks.Finding{ID: "collective-root-mismatch",
				Severity: checks.SevError, Call: "MPI_Gather", Site: site, Message: "m"}})
		}
		cn.Handle(wire.Message{Kind: wire.KindBlocked, Blocked: &wire.Blocked{Rank: i, Seq: 6, Call: "MPI_Gather", Site: site, Mode: wire.And,
			ForMS: 100, Waits: []wire.Wait{{Kind: wire.WaitColl, Ranks: []int{0, 1}, Call: "MPI_Gather", Comm: 1, Coll: 3}}}})
	}
	clk.t = clk.t.Add(time.Minute)
	if _, ok := d.check(clk.t); ok || len(asked) != 2 || asked[0] != 0 || asked[1] != 1 {
		t.Fatalf("got stuck %v, asked %v; want both blocked ranks asked first", ok, asked)
	}
	for i, cn := range conns {
		cn.Handle(wire.Message{Kind: wire.KindConfirmed, Confirmed: &wire.Confirmed{Rank: i, Seq: 6, Probe: probe, Still: true}})
	}
	if f, ok := d.check(clk.t); !ok || f.why() != "collective-root-mismatch" {
		t.Fatalf("got %v %q, want stuck at collective-root-mismatch", ok, f.why())
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
	var below []int
	for len(below) < 2 {
		if ctx.Err() != nil {
			t.Fatal("the processes never started")
		}
		b, _ := os.ReadFile(pids)
		below = below[:0]
		for _, f := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(f)
			below = append(below, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
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
