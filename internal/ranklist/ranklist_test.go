package ranklist

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Table is testdata/ranklists.json, which the VS Code extension's tests
// read too.
type Table struct {
	Launch []struct {
		List  json.RawMessage
		NP    int
		Ranks []int
	}
	Wire []struct {
		List  string
		Ranks []int
	}
	Format []struct {
		Ranks                          []int
		Compact, Prose, Wire, Expanded string
	}
}

func readTable(t *testing.T) Table {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ranklists.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tab Table
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Launch) < 20 || len(tab.Wire) < 10 || len(tab.Format) < 5 {
		t.Fatalf("ranklists.json is not read right: %d, %d, %d cases", len(tab.Launch), len(tab.Wire), len(tab.Format))
	}
	return tab
}

// expand is the ranks of runs, sorted and distinct.
func expand(runs []Run) []int {
	out := []int{}
	for _, r := range runs {
		for x := r.First; x <= r.Last; x += r.Step {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestLaunch: the lists a launch configuration may give parse to the
// ranks the table says (that the ranks are in the job, and "all", are
// dap's to check: its TestRankListTable reads the same cases).
func TestLaunch(t *testing.T) {
	for _, c := range readTable(t).Launch {
		var s string
		if json.Unmarshal(c.List, &s) != nil || s == "all" || c.Ranks == nil {
			continue
		}
		runs, err := Parse(s, Launch)
		if got := expand(runs); err != nil || !slices.Equal(got, c.Ranks) {
			t.Errorf("Parse(%q, Launch) = %v, %v; want %v", s, got, err, c.Ranks)
		}
	}
}

func TestWire(t *testing.T) {
	for _, c := range readTable(t).Wire {
		runs, err := Parse(c.List, Wire)
		switch {
		case c.Ranks == nil && err == nil:
			t.Errorf("Parse(%q, Wire) = %v, want an error", c.List, runs)
		case c.Ranks == nil && !errors.As(err, new(*ItemError)):
			t.Errorf("Parse(%q, Wire): error %v is no *ItemError", c.List, err)
		case c.Ranks != nil && (err != nil || !slices.Equal(expand(runs), c.Ranks)):
			t.Errorf("Parse(%q, Wire) = %v, %v; want %v", c.List, expand(runs), err, c.Ranks)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range readTable(t).Format {
		for _, f := range []struct {
			name string
			form Form
			want string
		}{{"Compact", Compact, c.Compact}, {"Prose", Prose, c.Prose}, {"Wire", Wire, c.Wire}, {"Expanded", Expanded, c.Expanded}} {
			if got := Format(c.Ranks, f.form); got != f.want {
				t.Errorf("Format(%v, %s) = %q, want %q", c.Ranks, f.name, got, f.want)
			}
			// what a form writes, it reads back (blanks allowed where it writes them)
			back := f.form
			back.Blanks = back.Blanks || f.form.Sep != ""
			if runs, err := Parse(f.want, back); err != nil || !slices.Equal(expand(runs), c.Ranks) {
				t.Errorf("Parse(%q, %s) = %v, %v; want %v", f.want, f.name, expand(runs), err, c.Ranks)
			}
		}
	}
}

// TestParseKeepsRunsBeforeABadItem: a caller that bounds the ranks (the
// wire) sees the runs before the bad item, in the list's order.
func TestParseKeepsRunsBeforeABadItem(t *testing.T) {
	runs, err := Parse("5-9,0,x,3", Compact)
	var bad *ItemError
	if !errors.As(err, &bad) || bad.Item != "x" || !slices.Equal(runs, []Run{{5, 9, 1}, {0, 0, 1}}) {
		t.Errorf("got %v, %v", runs, err)
	}
	if _, err := Parse(" 1", Compact); err == nil {
		t.Errorf("Compact took a blank")
	}
	if _, err := Parse("0-4:2", Launch); err == nil {
		t.Errorf("Launch took a step")
	}
}

// TestSetAndPhrase: sets of ranks as the reports write them.
func TestSetAndPhrase(t *testing.T) {
	tests := []struct {
		in         []int
		want, long string
	}{
		{nil, "", "rank "},
		{[]int{3}, "3", "rank 3"},
		{[]int{0, 1}, "0,1", "ranks 0,1"},
		{[]int{0, 1, 2}, "0-2", "ranks 0-2"},
		{[]int{7, 5, 0, 2, 6}, "0,2,5-7", "ranks 0,2,5-7"},
		{[]int{2, 2, 2}, "2", "rank 2"},
		{runOf(0, 64), "0-63", "ranks 0-63"},
		{append(runOf(0, 4), 5, 6, 9, 10, 11, 12), "0-3,5,6,9-12", "ranks 0-3,5,6,9-12"},
	}
	for _, tt := range tests {
		if got := Set(tt.in); got != tt.want {
			t.Errorf("Set(%v): got %q, want %q", tt.in, got, tt.want)
		}
		if tt.in != nil {
			if got := Phrase(tt.in); got != tt.long {
				t.Errorf("Phrase(%v): got %q, want %q", tt.in, got, tt.long)
			}
		}
	}
}

func runOf(from, to int) []int {
	var out []int
	for r := from; r < to; r++ {
		out = append(out, r)
	}
	return out
}
