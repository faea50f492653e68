package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
)

func TestParseRules(t *testing.T) {
	src := `# reviewed: the master files results by index
message-race   src/master.c:40   # any worker may be first
type-mismatch  function=exchange_*

leak           *
*              vendor/blas.c
message-race-info ./master.c
`
	rules, err := ParseRules("s.supp", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{Source: "s.supp:2", What: "message-race", File: "src/master.c", Line: 40},
		{Source: "s.supp:3", What: "type-mismatch", Function: "exchange_*"},
		{Source: "s.supp:5", What: "leak"},
		{Source: "s.supp:6", What: "*", File: "vendor/blas.c"},
		{Source: "s.supp:7", What: "message-race-info", File: "master.c"},
	}
	if len(rules) != len(want) {
		t.Fatalf("got %d rules %+v, want %d", len(rules), rules, len(want))
	}
	for i := range want {
		if rules[i] != want[i] {
			t.Errorf("rule %d: got %+v, want %+v", i, rules[i], want[i])
		}
	}
	if got := rules[0].String(); got != "message-race src/master.c:40" {
		t.Errorf("String: %q", got)
	}
}

func TestParseRulesErrors(t *testing.T) {
	for _, tc := range []struct{ src, err string }{
		{"message-race\n", `s.supp:1: "message-race": want ID-OR-CATEGORY then FILE:LINE, FILE, function=NAME or *`},
		{"# ok\n\nleak * extra\n", `s.supp:3: "leak * extra": want ID-OR-CATEGORY then FILE:LINE, FILE, function=NAME or *`},
		{"leaks *\n", `s.supp:1: "leaks" is no finding id or category (see 'mpidbg explain')`},
		{"leak master.c:0\n", `s.supp:1: "master.c:0": the line after the colon must be a positive number`},
		{"leak master.c:x\n", `s.supp:1: "master.c:x": the line after the colon must be a positive number`},
		{"leak function=\n", `s.supp:1: "function=": function= wants a function name`},
		{"leak func=main\n", `s.supp:1: "func=main": want ID-OR-CATEGORY then FILE:LINE, FILE, function=NAME or *`},
		{"leak function=[a\n", `s.supp:1: "function=[a": bad pattern: syntax error in pattern`},
		{"leak :12\n", `s.supp:1: ":12": no file name`},
	} {
		_, err := ParseRules("s.supp", strings.NewReader(tc.src))
		if err == nil || err.Error() != tc.err {
			t.Errorf("%q: got %v, want %s", tc.src, err, tc.err)
		}
	}
}

func TestRuleMatches(t *testing.T) {
	f := &checks.Finding{ID: "message-race", Category: checks.CatMessageRace,
		Location: checks.Location{File: "/home/u/app/src/master.c", Line: 40, Function: "collect_results"}}
	leak := &checks.Finding{ID: "leak-type", Category: checks.CatLeak, Location: checks.Location{File: "/home/u/app/types.c", Line: 7}}
	for _, tc := range []struct {
		rule string
		f    *checks.Finding
		want bool
	}{
		{"message-race src/master.c:40", f, true},
		{"message-race master.c:40", f, true},
		{"message-race /home/u/app/src/master.c:40", f, true},
		{"message-race app/src/master.c", f, true},
		{"message-race ter.c:40", f, false},             // not a whole component
		{"message-race /app/src/master.c:40", f, false}, // absolute: the whole path
		{"message-race master.c:41", f, false},
		{"message-race-info master.c:40", f, false},
		{"message-race function=collect_results", f, true},
		{"message-race function=collect_*", f, true},
		{"message-race function=collect", f, false},
		{"* *", f, true},
		{"leak *", f, false},
		{"leak *", leak, true},      // a category
		{"leak-type *", leak, true}, // an id
		{"leak-comm *", leak, false},
		{"leak function=main", leak, false}, // no function known
	} {
		rules, err := ParseRules("t", strings.NewReader(tc.rule))
		if err != nil {
			t.Fatalf("%q: %v", tc.rule, err)
		}
		if got := rules[0].Matches(tc.f); got != tc.want {
			t.Errorf("%q on %s at %v: got %v, want %v", tc.rule, tc.f.ID, tc.f.Location, got, tc.want)
		}
	}
}

func TestSuppress(t *testing.T) {
	mk := func(id string, cat checks.Category, file string, line int) Finding {
		return Finding{Finding: checks.Finding{ID: id, Category: cat, Severity: checks.SevError,
			Location: checks.Location{File: file, Line: line}}, Count: 1}
	}
	rep := &Report{Findings: []Finding{
		mk("type-mismatch", checks.CatTypeMismatch, "/a/halo.c", 10),
		mk("message-race", checks.CatMessageRace, "/a/master.c", 40),
		mk("leak-type", checks.CatLeak, "/a/types.c", 3),
	}}
	rules, err := ParseRules("s", strings.NewReader("message-race master.c:40\nleak *\ncollective-mismatch *\n"))
	if err != nil {
		t.Fatal(err)
	}
	if n := Suppress(rep, rules); n != 2 {
		t.Fatalf("Suppress: %d, want 2", n)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "type-mismatch" {
		t.Errorf("kept %+v", rep.Findings)
	}
	if len(rep.Suppressed) != 2 || rep.Suppressed[0].ID != "message-race" || rep.Suppressed[0].Rule.Source != "s:1" ||
		rep.Suppressed[1].ID != "leak-type" || rep.Suppressed[1].Rule.Source != "s:2" {
		t.Errorf("suppressed %+v", rep.Suppressed)
	}
	if rep.HasErrors() != true || rep.Count(checks.SevError) != 1 {
		t.Errorf("counts after suppression: %d errors", rep.Count(checks.SevError))
	}
	if n := Suppress(rep, nil); n != 0 || len(rep.Findings) != 1 {
		t.Errorf("no rules: %d suppressed, %d kept", n, len(rep.Findings))
	}
}

func TestLoadRules(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "app")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// no file next to the program, none given: no rules
	if rules, err := LoadRules(nil, prog); err != nil || len(rules) != 0 {
		t.Fatalf("LoadRules: %v, %v", rules, err)
	}
	own := filepath.Join(dir, SuppressFile)
	if err := os.WriteFile(own, []byte("leak *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(dir, "extra.supp")
	if err := os.WriteFile(extra, []byte("message-race master.c:40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rules, err := LoadRules([]string{extra}, prog)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || rules[0].Source != extra+":1" || rules[1].Source != own+":1" {
		t.Errorf("rules %+v", rules)
	}
	// the program's own file named explicitly is read once
	if rules, err := LoadRules([]string{own}, prog); err != nil || len(rules) != 1 {
		t.Errorf("own named: %+v, %v", rules, err)
	}
	// a file given that does not exist is an error; a bad line names its place
	if _, err := LoadRules([]string{filepath.Join(dir, "nope")}, prog); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(own, []byte("# ok\nleak\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRules(nil, prog); err == nil || !strings.HasPrefix(err.Error(), "suppression file "+own+":2: ") {
		t.Errorf("bad own file: %v", err)
	}
}
