package report

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/wire"
)

// TestOutcome: a job of 6 ranks as the collector sees it. Rank 1 crashes
// in a library without debug information called from the program; rank 2
// calls MPI_Abort; rank 3 calls exit() and rank 4 returns from main
// without MPI_Finalize; rank 0 finalizes; rank 5 never connects.
func TestOutcome(t *testing.T) {
	c := NewCollector()
	hello6 := func(rank int) wire.Message {
		return wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: rank, Size: 6, PID: 100 + rank, Host: "n", Exe: "/bin/app"}}
	}
	run := func(rank int, msgs ...wire.Message) {
		cn := c.Conn()
		cn.Handle(hello6(rank))
		for _, m := range msgs {
			cn.Handle(m)
		}
		cn.End(nil)
	}
	run(0, bye(0, 0))
	run(1, wire.Message{Kind: wire.KindCrash, Crash: &wire.Crash{Rank: 1, PID: 101, Signal: 11, Code: 1, Addr: 8,
		Stack: []checks.Site{{Module: "nodebug", Offset: 10}, {Module: "/proc/self/exe", Offset: 40}, {Offset: 0x7f}}}})
	run(2, wire.Message{Kind: wire.KindAbort, Abort: &wire.Abort{Rank: 2, Code: 3, Comm: "MPI_COMM_WORLD", Site: checks.Site{Module: "/bin/app", Offset: 60}}})
	run(3, wire.Message{Kind: wire.KindExit, Exit: &wire.Exit{Rank: 3, Status: 2, Site: checks.Site{Module: "/bin/app", Offset: 80}}})
	run(4, wire.Message{Kind: wire.KindExit, Exit: &wire.Exit{Rank: 4, Status: 0, Returned: true}})
	c.ProcessStatus(101, "n", "signal 11")
	r := Build(c, Job{Size: 6, Exit: "exit status 3", LaunchError: ""}, fakeResolver{})
	two, zero := 2, 0
	want := []RankEnd{
		{Ranks: []int{0}, How: Finalized},
		{Ranks: []int{1}, How: Signalled, Signal: 11, SignalName: "SIGSEGV", Fault: "address not mapped", Addr: 8,
			Location: &checks.Location{File: "/src/app.c", Line: 20, Function: "main"},
			Frames:   []checks.Location{{Function: "f"}, {File: "/src/app.c", Line: 20, Function: "main"}, {}}, Status: "signal 11"},
		{Ranks: []int{2}, How: Aborted, AbortCode: 3, Comm: "MPI_COMM_WORLD", Location: &checks.Location{File: "/src/app.c", Line: 30, Function: "main"}},
		{Ranks: []int{3}, How: NoFinalize, ExitCode: &two, Location: &checks.Location{File: "/src/app.c", Line: 40, Function: "main"}},
		{Ranks: []int{4}, How: NoFinalize, ExitCode: &zero, Returned: true},
		{Ranks: []int{5}, How: NeverStarted},
	}
	if !reflect.DeepEqual(r.Outcome.Ranks, want) {
		t.Errorf("got\n%s\nwant\n%s", dump(r.Outcome.Ranks), dump(want))
	}
	if !r.Outcome.Abnormal() {
		t.Error("not abnormal")
	}
}

// TestOutcomeGroups: ranks that ended alike are one group; a rank the
// launcher says was killed after mpidbg ended the job was ended by it.
func TestOutcomeGroups(t *testing.T) {
	c := NewCollector()
	for rank := 0; rank < 4; rank++ {
		cn := c.Conn()
		cn.Handle(hello(rank, 10+rank))
		if rank < 2 {
			cn.Handle(bye(rank, 0))
		}
		if rank == 3 {
			c.EndedJob("deadlock")
		}
		cn.End(nil)
	}
	r := Build(c, Job{Size: 4}, nil)
	want := []RankEnd{
		{Ranks: []int{0, 1}, How: Finalized},
		{Ranks: []int{2}, How: Vanished},
		{Ranks: []int{3}, How: EndedByTool, Status: "ended by mpidbg: deadlock"},
	}
	if !reflect.DeepEqual(r.Outcome.Ranks, want) {
		t.Errorf("got\n%s\nwant\n%s", dump(r.Outcome.Ranks), dump(want))
	}
}

func dump(es []RankEnd) string {
	s := ""
	for _, e := range es {
		loc, code := "-", "-"
		if e.Location != nil {
			loc = e.Location.String()
		}
		if e.ExitCode != nil {
			code = fmt.Sprint(*e.ExitCode)
		}
		s += fmt.Sprintf("%v %s sig=%s code=%s at=%s status=%q frames=%v\n", e.Ranks, e.How, e.SignalName, code, loc, e.Status, e.Frames)
	}
	return s
}

// TestOutcomeProvisional: a crash the rank reported is how it ended only
// when nothing came after it. A program that handles the signal and goes
// on finalizes (Bye) or exits (Exit) later: rank 0 handled a fault and
// finalized; rank 1 handled one and exited without MPI_Finalize; rank 2
// said Exit from an exit handler that ran before the one that called
// MPI_Finalize (Bye); rank 3 exited, then crashed in a later exit handler
// (the crash is how it ended); rank 4's MPI library exited on a fatal
// error.
func TestOutcomeProvisional(t *testing.T) {
	c := NewCollector()
	crash := func(rank int) wire.Message {
		return wire.Message{Kind: wire.KindCrash, Crash: &wire.Crash{Rank: rank, PID: 10 + rank, Signal: 11, Code: 1, Addr: 16}}
	}
	exit := func(rank, status int) wire.Message {
		return wire.Message{Kind: wire.KindExit, Exit: &wire.Exit{Rank: rank, Status: status, Returned: true}}
	}
	for rank, msgs := range [][]wire.Message{
		{crash(0), bye(0, 0)},
		{crash(1), exit(1, 3)},
		{exit(2, 0), bye(2, 0)},
		{exit(3, 0), crash(3)},
		{{Kind: wire.KindExit, Exit: &wire.Exit{Rank: 4, Status: 0x1402000f, ByMPI: true}}},
	} {
		cn := c.Conn()
		cn.Handle(hello(rank, 10+rank))
		for _, m := range msgs {
			cn.Handle(m)
		}
		cn.End(nil)
	}
	r := Build(c, Job{Size: 5}, nil)
	three, fifteen := 3, 15
	want := []RankEnd{
		{Ranks: []int{0, 2}, How: Finalized},
		{Ranks: []int{1}, How: NoFinalize, ExitCode: &three, Returned: true},
		{Ranks: []int{3}, How: Signalled, Signal: 11, SignalName: "SIGSEGV", Fault: "address not mapped", Addr: 16},
		{Ranks: []int{4}, How: MPIEnded, ExitCode: &fifteen},
	}
	if !reflect.DeepEqual(r.Outcome.Ranks, want) {
		t.Errorf("got\n%s\nwant\n%s", dump(r.Outcome.Ranks), dump(want))
	}
}

// TestOutcomeFatal: a rank that said it went on into a call after an
// error, under a handler that ends the job, and then ended without a word
// of its own, was ended by MPI's handler in that call. Rank 0: killed
// (MPICH's process manager); rank 1: MPI's exit() (ByMPI) gives the exit
// code too; rank 2: the call returned (Left), so the later kill is the
// launcher's; rank 3: inside such a call when mpidbg ended the job; rank
// 4: said it, then finalized; rank 5: said it, then exited 0, which is
// not MPI's handler.
func TestOutcomeFatal(t *testing.T) {
	c := NewCollector()
	fatal := func(rank int) wire.Message {
		return wire.Message{Kind: wire.KindFatal, Fatal: &wire.Fatal{Rank: rank, Call: "MPI_Send", ID: "invalid-rank",
			Handler: "MPI_ERRORS_ARE_FATAL", Site: checks.Site{Module: "/bin/app", Offset: 60}}}
	}
	left := wire.Message{Kind: wire.KindFatal, Fatal: &wire.Fatal{Left: true}}
	for rank, msgs := range [][]wire.Message{
		{fatal(0)},
		{fatal(1), {Kind: wire.KindExit, Exit: &wire.Exit{Rank: 1, Status: 6, ByMPI: true}}},
		{fatal(2), left},
		{fatal(3)},
		{fatal(4), bye(4, 1)},
		{fatal(5)},
	} {
		cn := c.Conn()
		cn.Handle(wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: rank, Size: 6, PID: 10 + rank, Host: "n", Exe: "/bin/app"}})
		for _, m := range msgs {
			cn.Handle(m)
		}
		if rank == 3 {
			c.EndedJob("deadlock")
		}
		cn.End(nil)
		switch {
		case rank < 4:
			c.ProcessStatus(10+rank, "n", "signal 9")
		case rank == 5:
			c.ProcessStatus(10+rank, "n", "exit code 0")
		}
	}
	r := Build(c, Job{Size: 6}, fakeResolver{})
	six, zero := 6, 0
	at := &checks.Location{File: "/src/app.c", Line: 30, Function: "main"}
	want := []RankEnd{
		{Ranks: []int{0}, How: MPIEnded, Location: at, Call: "MPI_Send", Finding: "invalid-rank", Handler: "MPI_ERRORS_ARE_FATAL", Status: "signal 9"},
		{Ranks: []int{1}, How: MPIEnded, ExitCode: &six, Location: at, Call: "MPI_Send", Finding: "invalid-rank", Handler: "MPI_ERRORS_ARE_FATAL", Status: "signal 9"},
		{Ranks: []int{2}, How: Signalled, Signal: 9, SignalName: "SIGKILL", Status: "signal 9"},
		{Ranks: []int{3}, How: EndedByTool, Status: "ended by mpidbg: deadlock"},
		{Ranks: []int{4}, How: Finalized},
		{Ranks: []int{5}, How: ExitedBadly, ExitCode: &zero, Status: "exit code 0"},
	}
	if !reflect.DeepEqual(r.Outcome.Ranks, want) {
		t.Errorf("got\n%s\nwant\n%s", dump(r.Outcome.Ranks), dump(want))
	}
	// after a Ctrl-C, a rank killed inside such a call is not MPI's either
	r = Build(c, Job{Size: 6, Interrupted: "SIGINT"}, fakeResolver{})
	if e := r.Outcome.Ranks[0]; e.How == MPIEnded {
		t.Errorf("after SIGINT: rank 0 %s", e.How)
	}
}

// TestRankStatus: Open MPI names a rank killed from outside by its rank
// (its PID there is 0); the status goes to that rank, whatever the
// launcher calls its node.
func TestRankStatus(t *testing.T) {
	c := NewCollector()
	for rank := 0; rank < 3; rank++ {
		cn := c.Conn()
		cn.Handle(hello(rank, 200+rank))
		if rank == 0 {
			cn.Handle(bye(0, 0))
		}
		cn.End(nil)
	}
	c.RankStatus(1, "node1", "signal 9")
	c.RankStatus(2, "n2-alias", "signal 15") // the launcher's name for rank 2's node
	c.RankStatus(6, "node1", "signal 9")     // no such rank
	r := Build(c, Job{Size: 3, Exit: "exit status 137"}, fakeResolver{})
	got := map[int]string{}
	for _, e := range r.Outcome.Ranks {
		for _, n := range e.Ranks {
			got[n] = fmt.Sprintf("%v %s", e.How, e.Status)
		}
	}
	if got[1] != fmt.Sprintf("%v signal 9", Signalled) || got[2] != fmt.Sprintf("%v signal 15", Signalled) {
		t.Errorf("ranks ended as %q: want rank 1 signalled by 9, rank 2 by 15", got)
	}
	var notes []string
	for _, n := range r.Notes {
		if strings.Contains(n, "before it connected") {
			notes = append(notes, n)
		}
	}
	want := []string{"rank 6 on node1 ended with signal 9 before it connected"}
	if !slices.Equal(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}
