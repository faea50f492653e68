package pretty

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/run/report"
)

// Report draws an `mpidbg run` report for the terminal: one block per
// finding (a header with severity, id, category, call and ranks; the
// message; where; the type-tree path; related locations; the MPI rule),
// notes about the run, and a summary line. File names inside dir are
// shown relative to it. A report without findings is one line, plus the
// notes and deaths it has.
func (r *Renderer) Report(rep *report.Report, dir string) string {
	var b strings.Builder
	for i, f := range rep.Findings {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(r.finding(f, dir))
	}
	if len(rep.Findings) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(r.Outcome(rep, dir)) // how the ranks ended (outcome.go)
	for _, n := range rep.Notes {
		b.WriteString(r.wrap([]piece{{"mpidbg: note: " + n, &r.dim}}, 0, 2) + "\n")
	}
	b.WriteString(r.ReportSummary(rep))
	return b.String()
}

func plural(n int, one, other string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, other)
}

func (r *Renderer) severity(s checks.Severity) lipgloss.Style {
	switch s {
	case checks.SevError:
		return r.bad
	case checks.SevWarning:
		return r.num.Bold(true)
	}
	return r.name
}

// finding draws one finding's block: the header (severity, id, the
// category when it is not the id, call, ranks or the pattern they made),
// the message without the call the header names, where, the source line
// with the argument at fault marked, then path, related places (each with
// its source line) and rule. Text wraps to the renderer's width.
func (r *Renderer) finding(f report.Finding, dir string) string {
	sev := r.severity(f.Severity)
	sep := piece{" · ", &r.dim}
	head := []piece{{string(f.Severity), &sev}, sep, {f.ID, &r.head}}
	if f.Category != "" && string(f.Category) != f.ID {
		head = append(head, sep, piece{string(f.Category), &r.comb})
	}
	if f.Call != "" {
		head = append(head, sep, piece{text: f.Call})
	}
	who := ranklist.Phrase(f.Ranks)
	switch {
	case f.Pattern != "":
		who = f.Pattern
	case len(f.Ranks) == 0:
		who = "rank unknown"
	}
	if f.Count > len(f.Ranks) && f.Count > 1 {
		who += fmt.Sprintf(", %d times", f.Count)
	}
	head = append(head, sep, piece{text: who})
	var b strings.Builder
	b.WriteString(r.wrap(head, 0, 2) + "\n")
	if msg := strings.TrimPrefix(f.Message, f.Call+": "); msg != "" {
		b.WriteString("  " + r.wrap([]piece{{text: msg}}, 2, 2) + "\n")
	}
	if at := where(f.Location, f.Site, dir); at != "" {
		word, rest := "at ", at
		if strings.HasPrefix(at, "in ") {
			word, rest = "in ", at[3:]
		}
		b.WriteString("  " + r.wrap([]piece{{word, &r.dim}, {text: rest}}, 2, 4) + "\n")
	}
	// a related place on the finding's own line is marked in the same
	// drawing (a ring's send and receive in one MPI_Sendrecv)
	marks := []mark{{loc: f.Location, call: f.Call, arg: f.Arg, primary: true}}
	sameLine := func(l checks.Location) bool {
		return l.File != "" && l.File == f.Location.File && l.Line == f.Location.Line
	}
	for _, rel := range f.Related {
		if sameLine(rel.Location) && rel.Arg != "" {
			marks = append(marks, mark{loc: rel.Location, call: rel.Call, arg: rel.Arg})
		}
	}
	if f.Location.File != "" {
		b.WriteString(r.source(marks, dir, 4, sev))
	}
	type field struct {
		key    string
		value  []piece
		source []mark
	}
	var fs []field
	sources := 0
	if f.Path != "" {
		fs = append(fs, field{key: "path", value: []piece{{text: f.Path}}})
	}
	for _, rel := range f.Related {
		v := []piece{{text: rel.Message}}
		if at := where(rel.Location, rel.Site, dir); strings.HasPrefix(at, "in ") {
			v = append(v, piece{" in ", &r.dim}, piece{text: at[3:]})
		} else if at != "" {
			v = append(v, piece{" at ", &r.dim}, piece{text: at})
		}
		x := field{key: "related", value: v}
		if rel.Location.File != "" && !sameLine(rel.Location) && sources < maxRelatedSources { // the finding's line is drawn already
			sources++
			x.source = []mark{{loc: rel.Location, call: rel.Call, arg: rel.Arg}}
		}
		fs = append(fs, x)
	}
	if f.Rule != "" {
		fs = append(fs, field{key: "rule", value: []piece{{text: f.Rule}}})
	}
	w := 0
	for _, x := range fs {
		w = max(w, len(x.key))
	}
	col := 2 + w + 2
	for _, x := range fs {
		b.WriteString("  " + r.dim.Render(x.key) + strings.Repeat(" ", w-len(x.key)+2) + r.wrap(x.value, col, col) + "\n")
		if x.source != nil {
			b.WriteString(r.source(x.source, dir, col, sev))
		}
	}
	return b.String()
}

// maxRelatedSources bounds the related places drawn with their source
// lines (a deadlock has two per rank).
const maxRelatedSources = 4

// where is "file:line in function" with file relative to dir and a long
// C++ name shortened, "in function" without a file, "module+0xOFFSET" for
// an unresolved site, or "".
func where(loc checks.Location, site checks.Site, dir string) string {
	if loc != (checks.Location{}) {
		loc.File = report.RelPath(dir, loc.File)
		loc.Function = shortFunction(loc.Function)
		return loc.String()
	}
	if site.Module != "" {
		return fmt.Sprintf("%s+%#x", report.RelPath(dir, site.Module), site.Offset)
	}
	return ""
}
