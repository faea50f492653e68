package pretty

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/run/report"
)

// ReportSummary is the last line of Report: "mpidbg: 3 errors, 1 warning
// in 4 ranks; rank 2 died (signal 11)", or "mpidbg: no findings (4
// ranks)". It counts the report's entries, one per bug. When the list is
// long enough to have scrolled away, it names the first entries of the
// most severe kind: "mpidbg: 3 errors (type-mismatch at ring.c:11,
// collective-mismatch at x.c:40, ...), 12 warnings in 64 ranks".
func (r *Renderer) ReportSummary(rep *report.Report) string {
	var parts []string
	counts := []struct {
		sev        checks.Severity
		one, other string
	}{
		{checks.SevError, "error", "errors"},
		{checks.SevWarning, "warning", "warnings"},
		{checks.SevInfo, "info", "info"},
	}
	for _, c := range counts {
		n := rep.Count(c.sev)
		if n == 0 {
			continue
		}
		word := c.other
		if n == 1 {
			word = c.one
		}
		part := r.severity(c.sev).Render(fmt.Sprintf("%d %s", n, word))
		if len(parts) == 0 && len(rep.Findings) > longReport {
			part += mostSevere(rep, c.sev)
		}
		parts = append(parts, part)
	}
	line := "mpidbg: "
	switch all, with := rep.NumRanks(), rep.RanksWithFindings(); {
	case len(rep.Findings) == 0:
		line += fmt.Sprintf("no findings (%s)", plural(all, "rank", "ranks"))
	case len(parts) == 0:
		line += fmt.Sprintf("%s in %s", plural(len(rep.Findings), "finding", "findings"), plural(with, "rank", "ranks"))
	case with < all:
		line += strings.Join(parts, ", ") + fmt.Sprintf(" in %d of %s", with, plural(all, "rank", "ranks"))
	default:
		line += strings.Join(parts, ", ") + " in " + plural(with, "rank", "ranks")
	}
	if hs := rep.Outcome.Hosts; len(hs) > 0 { // a job across machines (run/report/hosts.go)
		line += "; " + hostsPhrase(hs)
	}
	if n := len(rep.Suppressed); n > 0 { // by the user's suppression rules (run/report/suppress.go)
		line += fmt.Sprintf("; %d suppressed", n)
	}
	if len(rep.Outcome.Ranks) > 0 { // how the ranks ended, as they said (outcome.go)
		for _, s := range r.endPhrases(rep) {
			line += "; " + s
		}
	} else {
		for _, d := range rep.Died {
			s := ranklist.Phrase(d.Ranks) + " died"
			switch {
			case d.After && d.Status != "":
				s += " after MPI_Finalize (" + d.Status + ")"
			case d.Status != "":
				s += " (" + d.Status + ")"
			default:
				s += " before MPI_Finalize"
			}
			line += "; " + r.bad.Render(s)
		}
	}
	if len(rep.Silent) > 0 {
		line += "; " + r.num.Render(ranklist.Phrase(rep.Silent)+" never connected")
	}
	if rep.Interrupted != "" {
		line += "; interrupted (" + rep.Interrupted + ")"
	}
	if rep.Exit != "" {
		line += "; mpiexec ended with " + rep.Exit
	}
	for _, s := range rep.Refused.Phrases() { // connections turned away (run/launch's Listener)
		line += "; " + r.bad.Render(s)
	}
	return line
}

// longReport is the number of entries beyond which the summary names the
// most severe ones: a few blocks fit on a screen above it, more scroll
// away.
const longReport = 3

// summaryNamed is how many entries the summary names at most.
const summaryNamed = 3

// mostSevere names the first entries of severity sev, in report order
// (the most severe first): " (type-mismatch at ring.c:11, ...)", or ""
// when they have no id.
func mostSevere(rep *report.Report, sev checks.Severity) string {
	var names []string
	more := false
	for _, f := range rep.Findings {
		if f.Severity != sev || f.ID == "" {
			continue
		}
		name := f.ID
		switch {
		case f.Location.File != "":
			name += fmt.Sprintf(" at %s:%d", filepath.Base(f.Location.File), f.Location.Line)
		case f.Location.Function != "":
			name += " in " + shortFunction(f.Location.Function)
		}
		if slices.Contains(names, name) {
			continue
		}
		if len(names) == summaryNamed {
			more = true
			break
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return ""
	}
	if more {
		names = append(names, "...")
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// maxHostsNamed bounds the hosts the summary names: a job on a cluster
// has too many for one line.
const maxHostsNamed = 4

// hostsPhrase is "on 2 hosts: node1 (ranks 0,1), node2 (ranks 2,3)", the
// first maxHostsNamed hosts named.
func hostsPhrase(hs []report.HostRanks) string {
	var names []string
	for i, h := range hs {
		if i == maxHostsNamed {
			names = append(names, fmt.Sprintf("and %d more", len(hs)-i))
			break
		}
		names = append(names, h.Host+" ("+ranklist.Phrase(h.Ranks)+")")
	}
	return fmt.Sprintf("on %d hosts: %s", len(hs), strings.Join(names, ", "))
}
