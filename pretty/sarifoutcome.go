package pretty

import (
	"fmt"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/run/report"
)

// How the job ended, in SARIF 2.1.0: one invocation object (§3.20) for
// the job mpidbg ran. executionSuccessful is false when the job did not
// end well (a rank died, aborted or exited without MPI_Finalize, mpiexec
// failed, the launch failed: Appendix I reads such a run's results as
// possibly incomplete); exitCode is mpiexec's status, exitSignalName and
// exitSignalNumber the signal a rank died of (the first such group), or
// the one that ended mpiexec; processStartFailureMessage the launcher's
// error. Each group of ranks that did not finalize is a notification
// (§3.58) in toolExecutionNotifications: level "error" for a rank that
// failed (signal, MPI_Abort, exit without MPI_Finalize, a non-zero exit
// code), "note" for the others (ended by the launcher or by mpidbg, never
// started), with the place as its location and, for a signal, the stack
// as an exception object (§3.27) whose kind is the signal's name.
type (
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ExitCode                   *int                `json:"exitCode,omitempty"`
		ExitCodeDescription        string              `json:"exitCodeDescription,omitempty"`
		ExitSignalName             string              `json:"exitSignalName,omitempty"`
		ExitSignalNumber           int                 `json:"exitSignalNumber,omitempty"`
		ProcessStartFailureMessage string              `json:"processStartFailureMessage,omitempty"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level      string          `json:"level"`
		Message    sarifText       `json:"message"`
		Locations  []sarifLocation `json:"locations,omitempty"`
		Exception  *sarifException `json:"exception,omitempty"`
		Properties map[string]any  `json:"properties,omitempty"`
	}
	sarifException struct {
		Kind    string      `json:"kind"`
		Message string      `json:"message,omitempty"`
		Stack   *sarifStack `json:"stack,omitempty"`
	}
	sarifStack struct {
		Frames []sarifFrame `json:"frames"`
	}
	sarifFrame struct {
		Location sarifLocation `json:"location"`
	}
)

// sarifInvocations is the run's invocations: the job's.
func sarifInvocations(rep *report.Report, dir string) []sarifInvocation {
	inv := sarifInvocation{ProcessStartFailureMessage: rep.LaunchError}
	code := 0
	if rep.Exit != "" {
		if n, ok := jobCode(rep.Exit); ok {
			code = n
		} else if _, err := fmt.Sscanf(rep.Exit, "signal %d", &n); err == nil {
			inv.ExitSignalNumber, inv.ExitSignalName = n, report.SignalName(n)
		}
		inv.ExitCodeDescription = "mpiexec ended with " + rep.Exit
	}
	if inv.ExitSignalNumber == 0 {
		inv.ExitCode = &code
	}
	loc := func(l *checks.Location) []sarifLocation {
		if l == nil {
			return nil
		}
		var s sarifLocation
		if l.File != "" {
			s.PhysicalLocation = &sarifPhysical{ArtifactLocation: artifact(l.File, dir)}
			if l.Line > 0 {
				s.PhysicalLocation.Region = &sarifRegion{StartLine: l.Line}
			}
		}
		if l.Function != "" {
			s.LogicalLocations = []sarifLogicalLocation{{Name: l.Function, Kind: "function"}}
		}
		if s.PhysicalLocation == nil && s.LogicalLocations == nil {
			return nil
		}
		return []sarifLocation{s}
	}
	plain := Plain()
	failed := false
	for _, e := range rep.Outcome.Ranks {
		if e.How == report.Finalized {
			continue
		}
		n := sarifNotification{Level: "note", Locations: loc(e.Location),
			Properties: map[string]any{"ranks": e.Ranks, "how": string(e.How)}}
		switch e.How {
		case report.Signalled, report.Aborted, report.NoFinalize, report.ExitedBadly, report.MPIEnded:
			n.Level = "error"
			failed = true
		}
		n.Message.Text = plainLine(plain.endLine(e, rep, dir, true))
		if e.How == report.Signalled {
			if inv.ExitSignalNumber == 0 {
				inv.ExitSignalNumber, inv.ExitSignalName = e.Signal, e.SignalName
			}
			x := &sarifException{Kind: e.SignalName, Message: e.Fault}
			if len(e.Frames) > 0 {
				x.Stack = &sarifStack{}
				for _, f := range e.Frames {
					l := loc(&f)
					if l == nil {
						l = []sarifLocation{{}}
					}
					x.Stack.Frames = append(x.Stack.Frames, sarifFrame{Location: l[0]})
					if f.Function == "main" || f.Function == "MAIN__" {
						break
					}
				}
			}
			n.Exception = x
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	if len(rep.Outcome.Ranks) == 0 { // a report built without an outcome: what Died says
		for _, d := range rep.Died {
			failed = true
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "error",
				Message:    sarifText{strings.TrimSpace(ranklist.Phrase(d.Ranks) + " died " + d.Status)},
				Properties: map[string]any{"ranks": d.Ranks, "how": string(report.Vanished)}})
		}
	}
	// Connections the launcher turned away: someone else's, or a rank
	// that had no token; what they sent is not in the results.
	for _, x := range []struct {
		n   int
		one report.Refused // x alone, for its phrase
		how string
	}{
		{rep.Refused.NoToken, report.Refused{NoToken: rep.Refused.NoToken}, "no-token"},
		{rep.Refused.Surplus, report.Refused{Surplus: rep.Refused.Surplus}, "surplus"},
	} {
		if x.n == 0 {
			continue
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "warning",
			Message:    sarifText{x.one.Phrases()[0]},
			Properties: map[string]any{"refused": x.n, "why": x.how}})
	}
	for _, text := range rep.Notes { // about the run itself (report.Report.Notes)
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "note",
			Message: sarifText{text}})
	}
	inv.ExecutionSuccessful = !failed && rep.Exit == "" && rep.LaunchError == ""
	return []sarifInvocation{inv}
}

// plainLine is a rendered line without the trailing space styles leave.
func plainLine(s string) string { return strings.TrimSpace(s) }

// usesRoot says whether a location of n is relative to %SRCROOT%.
func (n sarifNotification) usesRoot() bool {
	ls := n.Locations
	if n.Exception != nil && n.Exception.Stack != nil {
		for _, f := range n.Exception.Stack.Frames {
			ls = append(ls, f.Location)
		}
	}
	for _, l := range ls {
		if l.PhysicalLocation != nil && l.PhysicalLocation.ArtifactLocation.URIBaseID != "" {
			return true
		}
	}
	return false
}
