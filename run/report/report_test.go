package report

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/wire"
)

// fakeResolver maps offsets to lines of "app.c"; module "bad" fails as a
// whole.
type fakeResolver struct{}

type modErr struct{ path string }

func (e modErr) Error() string      { return "not an ELF file" }
func (e modErr) ModulePath() string { return e.path }

func (fakeResolver) Resolve(s checks.Site) (checks.Location, error) {
	switch {
	case s.Module == "bad":
		return checks.Location{}, modErr{s.Module}
	case s.Module == "nodebug":
		return checks.Location{Function: "f"}, nil
	case s.Offset == 0:
		return checks.Location{}, errors.New("not found")
	}
	// offsets 100 and 101 are the same line
	return checks.Location{File: "/src/app.c", Line: int(s.Offset / 2), Function: "main"}, nil
}

func hello(rank, pid int) wire.Message {
	return wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: rank, Size: 4, PID: pid, Host: "node1.example"}}
}

func finding(id string, off uint64, msg string) wire.Message {
	e, _ := checks.Lookup(id)
	return wire.Message{Kind: wire.KindFinding, Finding: &checks.Finding{
		ID: id, Category: e.Category, Severity: e.Severity, Message: msg, Call: "MPI_Send",
		Site: checks.Site{Module: "/bin/app", Offset: off}}}
}

func bye(rank, n int) wire.Message {
	return wire.Message{Kind: wire.KindBye, Bye: &wire.Bye{Rank: rank, Findings: n}}
}

func TestBuild(t *testing.T) {
	c := NewCollector()
	send := func(msgs ...wire.Message) *Conn {
		cn := c.Conn()
		for _, m := range msgs {
			cn.Handle(m)
		}
		return cn
	}
	// ranks 0..2 report the same uncommitted type at two sites of one line;
	// rank 0 twice. Rank 1 also leaks; rank 2 crashes (no bye); rank 3
	// never connects.
	send(hello(0, 100),
		finding("type-not-committed", 100, "rank 0 sends with an uncommitted type"),
		finding("type-not-committed", 100, "rank 0 sends with an uncommitted type"),
		finding("invalid-tag", 60, "tag -1 is negative"),
		bye(0, 3)).End(nil)
	send(hello(1, 101),
		finding("type-not-committed", 101, "rank 1 sends with an uncommitted type"),
		finding("leak-type", 0, "datatype 0x8c000001 was never freed"),
		bye(1, 2)).End(nil)
	send(hello(2, 102),
		finding("type-not-committed", 100, "rank 2 sends with an uncommitted type")).End(errors.New("connection reset by peer"))
	c.ProcessStatus(102, "node1", "signal 11")
	c.ProcessStatus(999, "node2", "signal 9")

	r := Build(c, Job{Size: 4, Exit: "exit status 11"}, fakeResolver{})
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%s %s %v x%d %s | %s | %v", f.Severity, f.ID, f.Ranks, f.Count, f.Location, f.Message, f.Rule != ""))
	}
	want := []string{
		"error invalid-tag [0] x1 /src/app.c:30 in main | tag -1 is negative | true",
		"error type-not-committed [0 1 2] x4 /src/app.c:50 in main | each rank sends with an uncommitted type | true",
		"warning leak-type [1] x1 unknown location | datatype 0x8c000001 was never freed | true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\ngot  %q\nwant %q", got, want)
	}
	if !reflect.DeepEqual(r.Died, []Death{{Ranks: []int{2}, Status: "signal 11"}}) {
		t.Errorf("died: got %+v", r.Died)
	}
	if !slices.Equal(r.Silent, []int{3}) || !slices.Equal(r.Reported, []int{0, 1, 2}) {
		t.Errorf("silent %v, reported %v: want [3], [0 1 2]", r.Silent, r.Reported)
	}
	wantNotes := []string{
		"rank 2: connection lost: connection reset by peer",
		"process 999 on node2 ended with signal 9 before it connected",
	}
	if !slices.Equal(r.Notes, wantNotes) {
		t.Errorf("notes:\ngot  %q\nwant %q", r.Notes, wantNotes)
	}
	if r.Count(checks.SevError) != 2 || r.Count(checks.SevWarning) != 1 || !r.HasErrors() || r.RanksWithFindings() != 3 || r.NumRanks() != 4 {
		t.Errorf("counts: errors %d, warnings %d, ranks with findings %d, ranks %d",
			r.Count(checks.SevError), r.Count(checks.SevWarning), r.RanksWithFindings(), r.NumRanks())
	}
}

func TestBuildNotes(t *testing.T) {
	t.Run("nothing_connected", func(t *testing.T) {
		r := Build(NewCollector(), Job{Size: 2}, nil)
		if len(r.Notes) != 1 || !slices.Equal(r.Silent, []int{0, 1}) || r.NumRanks() != 2 {
			t.Errorf("got notes %q, silent %v", r.Notes, r.Silent)
		}
	})
	t.Run("bad_module_once", func(t *testing.T) {
		c := NewCollector()
		cn := c.Conn()
		cn.Handle(hello(0, 1))
		for _, off := range []uint64{10, 20, 30} {
			m := finding("invalid-tag", off, "x")
			m.Finding.Site.Module = "bad"
			cn.Handle(m)
		}
		m := finding("invalid-tag", 10, "y")
		m.Finding.Site.Module = "nodebug"
		cn.Handle(m)
		cn.Handle(bye(0, 3))
		cn.End(nil)
		r := Build(c, Job{}, fakeResolver{})
		want := []string{
			"rank 0 says it sent 3 findings, 4 arrived",
			"no source locations for bad: not an ELF file",
			"some locations have no file and line: build the program with -g",
		}
		if !slices.Equal(r.Notes, want) {
			t.Errorf("notes:\ngot  %q\nwant %q", r.Notes, want)
		}
		if len(r.Findings) != 4 {
			t.Errorf("got %d findings, want 4 (three unresolved sites stay apart)", len(r.Findings))
		}
	})
	t.Run("anonymous_connection", func(t *testing.T) {
		c := NewCollector()
		c.Conn().End(errors.New("wire: malformed message"))
		cn := c.Conn()
		cn.Handle(finding("invalid-tag", 10, "x"))
		cn.End(nil)
		r := Build(c, Job{}, nil)
		want := []string{
			"a connection ended before it said which rank it is: wire: malformed message",
			"a connection sent 1 findings without saying which rank it is",
		}
		if !slices.Equal(r.Notes, want) {
			t.Errorf("notes:\ngot  %q\nwant %q", r.Notes, want)
		}
	})
}

func TestOrder(t *testing.T) {
	mk := func(sev checks.Severity, cat checks.Category, file string, line int, id string) *Finding {
		return &Finding{Finding: checks.Finding{ID: id, Severity: sev, Category: cat, Location: checks.Location{File: file, Line: line}}}
	}
	in := []*Finding{
		mk(checks.SevInfo, checks.CatArgument, "a.c", 1, "i"),
		mk(checks.SevWarning, checks.CatLeak, "a.c", 1, "w"),
		mk(checks.SevError, checks.CatOverlap, "a.c", 1, "e3"),
		mk(checks.SevError, checks.CatArgument, "", 0, "e2"),
		mk(checks.SevError, checks.CatArgument, "b.c", 1, "e1"),
		mk(checks.SevError, checks.CatArgument, "a.c", 20, "e0b"),
		mk(checks.SevError, checks.CatArgument, "a.c", 3, "e0a"),
		mk("", "", "", 0, "odd"),
	}
	slices.SortFunc(in, func(a, b *Finding) int {
		if less(a, b) {
			return -1
		}
		if less(b, a) {
			return 1
		}
		return 0
	})
	var got []string
	for _, f := range in {
		got = append(got, f.ID)
	}
	want := []string{"e0a", "e0b", "e1", "e2", "e3", "w", "i", "odd"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRelPath(t *testing.T) {
	tests := []struct{ dir, file, want string }{
		{"/work", "/work/src/a.c", "src/a.c"},
		{"/work", "/workshop/a.c", "/workshop/a.c"},
		{"/work", "/usr/include/mpi.h", "/usr/include/mpi.h"},
		{"/work", "a.c", "a.c"},
		{"", "/work/a.c", "/work/a.c"},
	}
	for _, tt := range tests {
		if got := RelPath(tt.dir, tt.file); got != tt.want {
			t.Errorf("RelPath(%q, %q): got %q, want %q", tt.dir, tt.file, got, tt.want)
		}
	}
}

func TestProgramSite(t *testing.T) {
	tests := []struct {
		module, exe, want string
	}{
		{"/proc/self/exe", "/work/app", "/work/app"},
		{"./app", "/work/app", "/work/app"},
		{"app", "/work/app", "/work/app"},
		{"./other", "/work/app", "./other"},
		{"/lib/libfoo.so", "/work/app", "/lib/libfoo.so"},
		{"/proc/self/exe", "", "/proc/self/exe"},
		{"", "/work/app", ""},
	}
	for _, tt := range tests {
		got := programSite(checks.Site{Module: tt.module, Offset: 1}, tt.exe)
		if got.Module != tt.want {
			t.Errorf("programSite(%q, %q): got %q, want %q", tt.module, tt.exe, got.Module, tt.want)
		}
	}
}

// TestRankNotes: a note several ranks send shows once, with their ranks.
func TestRankNotes(t *testing.T) {
	c := NewCollector()
	note := func(text string) wire.Message {
		return wire.Message{Kind: wire.KindNote, Note: &wire.Note{Text: text}}
	}
	for rank := 0; rank < 4; rank++ {
		cn := c.Conn()
		cn.Handle(hello(rank, 100+rank))
		cn.Handle(note("the debug registers are off"))
		if rank == 2 {
			cn.Handle(note("the debug registers are off")) // said twice: once
			cn.Handle(note("something else"))
		}
		cn.Handle(bye(rank, 0))
		cn.End(nil)
	}
	cn := c.Conn() // before its hello: no rank to name
	cn.Handle(note("a stranger's note"))
	cn.End(nil)
	for i := 0; i < 2*maxRankNotes; i++ {
		c.Conn().Handle(note(fmt.Sprintf("note %d", i)))
	}
	r := Build(c, Job{Size: 4}, fakeResolver{})
	want := []string{"ranks 0-3: the debug registers are off", "rank 2: something else", "a stranger's note"}
	if len(r.Notes) != maxRankNotes || !slices.Equal(r.Notes[:len(want)], want) {
		t.Errorf("notes: got %d %q\nwant %d, beginning %q", len(r.Notes), r.Notes, maxRankNotes, want)
	}
}
