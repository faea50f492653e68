package dap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/run/report"
)

func TestSuppressCovers(t *testing.T) {
	rules, err := report.ParseRules("s", strings.NewReader("message-race master.c:40\ntype-mismatch function=halo_*\n"))
	if err != nil {
		t.Fatal(err)
	}
	rs := suppressRules(rules)
	race := &findingInfo{id: "message-race", category: "message-race", where: "/src/app/master.c:40 in collect", file: "/src/app/master.c", line: 40}
	halo := &findingInfo{id: "type-mismatch", category: "type-mismatch", where: "halo.c:7 in halo_exchange", file: "halo.c", line: 7}
	other := &findingInfo{id: "message-race", category: "message-race", where: "master.c:41 in collect", file: "master.c", line: 41}
	for _, tc := range []struct {
		f    *findingInfo
		want bool
	}{{race, true}, {halo, true}, {other, false}, {nil, false}} {
		if got := rs.covers(tc.f); got != tc.want {
			t.Errorf("covers(%+v) = %v, want %v", tc.f, got, tc.want)
		}
	}
	if suppressRules(nil).covers(race) {
		t.Errorf("no rules cover a finding")
	}
}

// TestJobConfigSuppress: the launch argument "suppress" and the
// program's .mpidbg-suppress are read at launch; a bad rule fails the
// launch with its file and line.
func TestJobConfigSuppress(t *testing.T) {
	s, _ := testServer(Config{Tools: fakeTools})
	dir := t.TempDir()
	prog := filepath.Join(dir, "app")
	b, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Skip(err)
	}
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(dir, report.SuppressFile)
	if err := os.WriteFile(own, []byte("leak *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	given := filepath.Join(dir, "reviewed.supp")
	if err := os.WriteFile(given, []byte("# reviewed\nmessage-race master.c:40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &launchArgs{Program: prog, Suppress: []string{given}}
	if _, _, err := s.jobConfig(a); err != nil {
		t.Fatal(err)
	}
	if len(a.rules) != 2 || a.rules[0].Source != given+":2" || a.rules[1].Source != own+":1" {
		t.Errorf("rules %+v", a.rules)
	}
	if err := os.WriteFile(given, []byte("message-race\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.jobConfig(&launchArgs{Program: prog, Suppress: []string{given}}); err == nil ||
		!strings.Contains(err.Error(), given+":1: ") {
		t.Errorf("bad rule: %v, want an error naming %s:1", err, given)
	}
}
