package pretty

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/run/report"
)

// Outcome draws how the job ended, for the terminal: one line per group
// of ranks that did not end by MPI_Finalize, with the place (a crash's
// frame, MPI_Abort's or exit()'s call), and a crash's stack below it.
// Empty when every rank finalized.
//
//	rank 1 died of signal 11 (SIGSEGV: address not mapped, at 0x0) at segv.c:8 in main
//	    fill at fill.c:8 ← main at segv.c:20
//	rank 0 called MPI_Abort(MPI_COMM_WORLD, 3) at abort.c:12; the job ended with code 3
//
// When the ranks ran on more than one host, each group names its hosts
// ("rank 3 on node2 died of signal 11 ...").
func (r *Renderer) Outcome(rep *report.Report, dir string) string {
	if !rep.Outcome.Abnormal() {
		return ""
	}
	failed := false
	for _, e := range rep.Outcome.Ranks {
		if e.How == report.Signalled || e.How == report.Aborted || e.How == report.NoFinalize || e.How == report.ExitedBadly || e.How == report.MPIEnded {
			failed = true
		}
	}
	// the ranks that failed first, then those the launcher ended for it
	ends := slices.Clone(rep.Outcome.Ranks)
	slices.SortStableFunc(ends, func(a, b report.RankEnd) int { return cmp.Compare(endOrder(a.How), endOrder(b.How)) })
	var b strings.Builder
	for _, e := range ends {
		line := r.endLine(e, rep, dir, failed)
		if line == "" {
			continue
		}
		b.WriteString(line + "\n")
		if st := stackWords(e.Frames, dir); e.How == report.Signalled && len(st) > 1 {
			b.WriteString(r.dim.Render("    "+strings.Join(st, " ← ")) + "\n")
		}
	}
	return b.String()
}

func endOrder(h report.How) int {
	switch h {
	case report.Signalled, report.Aborted, report.NoFinalize, report.ExitedBadly, report.MPIEnded:
		return 0
	case report.NeverStarted:
		return 2
	}
	return 1
}

// endLine is one group's line, "" for ranks that finalized.
func (r *Renderer) endLine(e report.RankEnd, rep *report.Report, dir string, failed bool) string {
	who := ranklist.Phrase(e.Ranks)
	if hosts := rep.Outcome.HostsOf(e.Ranks); len(hosts) > 0 { // a job across machines
		who += " on " + strings.Join(hosts, ", ")
	}
	at := ""
	if w := report.Where(e.Location, dir); w != "" {
		if e.Location.File == "" {
			at = " in " + w
		} else {
			at = " at " + w
		}
	}
	switch e.How {
	case report.Signalled:
		what := fmt.Sprintf("signal %d (%s", e.Signal, e.SignalName)
		if e.Fault != "" {
			what += fmt.Sprintf(": %s, at %#x", e.Fault, e.Addr)
		}
		what += ")"
		if e.After {
			return r.bad.Render(who+" died of "+what+" after MPI_Finalize") + at
		}
		return r.bad.Render(who+" died of "+what) + at
	case report.Aborted:
		s := r.bad.Render(fmt.Sprintf("%s called MPI_Abort(%s, %d)", who, e.Comm, e.AbortCode)) + at
		if code, ok := jobCode(rep.Exit); ok {
			s += fmt.Sprintf("; the job ended with code %d", code)
		}
		return s
	case report.NoFinalize:
		how := "main returned"
		if !e.Returned {
			how = "exit() was called"
		}
		if e.ExitCode != nil {
			if e.Returned {
				how = fmt.Sprintf("main returned %d", *e.ExitCode)
			} else {
				how = fmt.Sprintf("exit(%d) was called", *e.ExitCode)
			}
		}
		return r.bad.Render(who+" exited without calling MPI_Finalize") + ": " + how + at
	case report.MPIEnded:
		s := r.bad.Render("MPI ended " + who + " on a fatal error")
		if e.Call != "" {
			s = r.bad.Render("MPI ended "+who+" on a fatal error in "+e.Call) + at
			s += fmt.Sprintf(", where mpidbg reported %s (error handler %s)", e.Finding, e.Handler)
		}
		if e.ExitCode != nil {
			s += fmt.Sprintf(" (exit code %d)", *e.ExitCode)
		}
		return s
	case report.ExitedBadly:
		return r.bad.Render(fmt.Sprintf("%s exited with code %d", who, *e.ExitCode)) + afterWords(e.After)
	case report.Vanished:
		s := r.bad.Render(who + " ended before MPI_Finalize")
		switch {
		case e.Status != "":
			s += " (" + e.Status + ")"
		case failed:
			s += " without a word (the launcher ends the other ranks when one fails)"
		default:
			s += " without a word"
		}
		return s
	case report.EndedByTool:
		return who + " " + e.Status
	case report.NeverStarted:
		if e.LaunchError != "" {
			return r.bad.Render(who+" never started") + ": " + e.LaunchError
		}
		return r.num.Render(who + " never connected to mpidbg")
	}
	return ""
}

// baseName is l with its file's base name: the summary line is short.
func baseName(l *checks.Location) *checks.Location {
	if l == nil {
		return nil
	}
	c := *l
	c.File = filepath.Base(c.File)
	if l.File == "" {
		c.File = ""
	}
	return &c
}

func afterWords(after bool) string {
	if after {
		return " after MPI_Finalize"
	}
	return ""
}

// jobCode is mpiexec's exit status from Job.Exit ("exit status 3").
func jobCode(exit string) (int, bool) {
	var n int
	if _, err := fmt.Sscanf(exit, "exit status %d", &n); err == nil {
		return n, true
	}
	return 0, false
}

// stackWords is a crash's frames in words, innermost first, down to
// main: "memcpy", "fill at fill.c:8", "main at app.c:20".
func stackWords(frames []checks.Location, dir string) []string {
	var parts []string
	for _, f := range frames {
		if len(parts) > 0 && f == (checks.Location{}) {
			continue
		}
		w := report.Where(&f, dir)
		if f.File != "" && f.Function != "" {
			w = fmt.Sprintf("%s at %s:%d", f.Function, report.RelPath(dir, f.File), f.Line)
		}
		if w == "" {
			w = "?"
		}
		parts = append(parts, w)
		if f.Function == "main" || f.Function == "MAIN__" {
			break // the C library's start code is below it
		}
	}
	return parts
}

// endPhrases are the summary line's words on how ranks ended: "rank 1
// died (signal 11, SIGSEGV) at segv.c:8 in main".
func (r *Renderer) endPhrases(rep *report.Report) []string {
	var out []string
	ends := slices.Clone(rep.Outcome.Ranks)
	slices.SortStableFunc(ends, func(a, b report.RankEnd) int { return cmp.Compare(endOrder(a.How), endOrder(b.How)) })
	for _, e := range ends {
		who := ranklist.Phrase(e.Ranks)
		at := ""
		if w := report.Where(baseName(e.Location), ""); w != "" {
			if e.Location.File == "" {
				at = " in " + w
			} else {
				at = " at " + w
			}
		}
		var s string
		switch e.How {
		case report.Signalled:
			s = fmt.Sprintf("%s died (signal %d, %s)", who, e.Signal, e.SignalName)
			if e.After {
				s = fmt.Sprintf("%s died after MPI_Finalize (signal %d, %s)", who, e.Signal, e.SignalName)
			}
			s = r.bad.Render(s) + at
		case report.Aborted:
			s = r.bad.Render(fmt.Sprintf("%s called MPI_Abort(%s, %d)", who, e.Comm, e.AbortCode)) + at
		case report.NoFinalize:
			s = r.bad.Render(who+" exited without MPI_Finalize") + at
		case report.MPIEnded:
			s = r.bad.Render("MPI ended " + who + " on a fatal error")
			if e.Call != "" {
				s = r.bad.Render("MPI ended "+who+" on a fatal error in "+e.Call) + at
			}
		case report.ExitedBadly:
			s = r.bad.Render(fmt.Sprintf("%s exited with code %d%s", who, *e.ExitCode, afterWords(e.After)))
		case report.Vanished:
			if e.Status != "" {
				s = r.bad.Render(who + " died (" + e.Status + ")")
			} else {
				s = r.bad.Render(who + " ended before MPI_Finalize")
			}
		case report.EndedByTool:
			s = r.bad.Render(who + " " + e.Status) // "ended by mpidbg: deadlock"
		default:
			continue // finalized; never started: the silent ranks' phrase
		}
		out = append(out, s)
	}
	return out
}
