// Comparing the findings of mpidbg's JSON report with a program's annotations.

package harness

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
)

type location struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function"`
}

type finding struct {
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Severity string   `json:"severity"`
	Message  string   `json:"message"`
	Ranks    []int    `json:"ranks"`
	Call     string   `json:"call"`
	Location location `json:"location"`
	Path     string   `json:"path"`
	Related  []struct {
		Location location `json:"location"`
	} `json:"related"`
}

type jsonReport struct {
	Version  int       `json:"version"`
	Findings []finding `json:"findings"`
}

func (f finding) String() string {
	loc := "unknown location"
	if f.Location.File != "" {
		loc = fmt.Sprintf("%s:%d", filepath.Base(f.Location.File), f.Location.Line)
	} else if f.Location.Function != "" {
		loc = "in " + f.Location.Function
	}
	return fmt.Sprintf("%s: %q (%s, ranks %v, %s): %s", loc, f.ID, f.Severity, f.Ranks, f.Call, f.Message)
}

// compare checks the findings of p against its annotations and returns
// the problems, one per line.
func compare(p program, fs []finding) []string {
	var problems []string
	type key struct {
		line int
		id   string
	}
	matched := map[key]bool{}
	relMatched := map[key]bool{}
	inProg := func(file string) bool { return file == p.file || strings.HasSuffix(file, "/"+p.file) }
	for _, f := range fs {
		if inProg(f.Location.File) && slices.Contains(p.wants[f.Location.Line], f.ID) {
			matched[key{f.Location.Line, f.ID}] = true
			for _, r := range f.Related {
				if inProg(r.Location.File) {
					relMatched[key{r.Location.Line, f.ID}] = true
				}
			}
			if bad := badRanks(f.Ranks, p.ranks); bad != "" {
				problems = append(problems, fmt.Sprintf("bad ranks  %s: %s", f, bad))
			}
			continue
		}
		if p.ok || f.Severity == string(checks.SevError) || f.Severity == string(checks.SevWarning) {
			problems = append(problems, "unexpected "+f.String())
		}
	}
	for _, l := range sortedLines(p.wants) {
		for _, id := range p.wants[l] {
			if !matched[key{l, id}] {
				problems = append(problems, fmt.Sprintf("missing    %s:%d: want %q", p.file, l, id))
			}
		}
	}
	for _, l := range sortedMsgLines(p.msgs) {
		for _, w := range p.msgs[l] {
			var got []string
			ok := false
			for _, f := range fs {
				if inProg(f.Location.File) && f.Location.Line == l && f.ID == w.id {
					got = append(got, fmt.Sprintf("%q", f.Message))
					ok = ok || w.re.MatchString(f.Message)
				}
			}
			if !ok && len(got) > 0 { // no finding at all is reported as missing above
				problems = append(problems, fmt.Sprintf("message    %s:%d: want a %q finding whose message matches %q; got %s", p.file, l, w.id, w.re, strings.Join(got, ", ")))
			}
		}
	}
	for _, l := range sortedLines(p.related) {
		for _, id := range p.related[l] {
			if !relMatched[key{l, id}] {
				problems = append(problems, fmt.Sprintf("no related %s:%d: want a %q finding that names this line", p.file, l, id))
			}
		}
	}
	return problems
}

func sortedLines(m map[int][]string) []int {
	var lines []int
	for l := range m {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	return lines
}

func sortedMsgLines(m map[int][]wantMsg) []int {
	lines := slices.Collect(maps.Keys(m))
	sort.Ints(lines)
	return lines
}

func badRanks(ranks []int, n int) string {
	if len(ranks) == 0 {
		return "no ranks"
	}
	for _, r := range ranks {
		if r < 0 || r >= n {
			return fmt.Sprintf("rank %d outside 0..%d", r, n-1)
		}
	}
	return ""
}
