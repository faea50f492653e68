package pretty

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/golden"
	"github.com/mpidbg/mpidbg/run/report"
)

// outcomeReport is a job of 6 ranks in which rank 1 died of SIGSEGV in a
// function main called, rank 3 called MPI_Abort, rank 4 exited without
// MPI_Finalize, ranks 0 and 2 were ended by the launcher, and rank 5
// never started.
func outcomeReport() *report.Report {
	two := 2
	return &report.Report{
		Job:      report.Job{Size: 6, Exit: "exit status 3", LaunchError: "execvp error on file ./helper (No such file or directory)"},
		Reported: []int{0, 1, 2, 3, 4},
		Outcome: report.Outcome{Ranks: []report.RankEnd{
			{Ranks: []int{0, 2}, How: report.Vanished},
			{Ranks: []int{1}, How: report.Signalled, Signal: 11, SignalName: "SIGSEGV", Fault: "address not mapped", Addr: 0x10,
				Location: &checks.Location{File: "/work/app/src/fill.c", Line: 8, Function: "fill"},
				Frames: []checks.Location{{Function: "memset"}, {File: "/work/app/src/fill.c", Line: 8, Function: "fill"},
					{File: "/work/app/src/main.c", Line: 20, Function: "main"}, {Function: "__libc_start_call_main"}, {}}},
			{Ranks: []int{3}, How: report.Aborted, AbortCode: 3, Comm: "MPI_COMM_WORLD",
				Location: &checks.Location{File: "/work/app/src/main.c", Line: 31, Function: "main"}},
			{Ranks: []int{4}, How: report.NoFinalize, ExitCode: &two, Location: &checks.Location{File: "/work/app/src/main.c", Line: 40, Function: "main"}},
			{Ranks: []int{5}, How: report.NeverStarted, LaunchError: "execvp error on file ./helper (No such file or directory)"},
		}},
	}
}

// mpiFatalReport is a job of 3 ranks in which MPI's error handler ended
// rank 0 in the call where mpidbg reported an error (MPI_ERRORS_ARE_FATAL),
// MPI ended rank 1 on a fatal error of its own finding (its exit()), and
// the launcher ended rank 2.
func mpiFatalReport() *report.Report {
	six := 6
	return &report.Report{
		Job:      report.Job{Size: 3, Exit: "exit status 6"},
		Reported: []int{0, 1, 2},
		Outcome: report.Outcome{Ranks: []report.RankEnd{
			{Ranks: []int{0}, How: report.MPIEnded, Call: "MPI_Send", Finding: "invalid-rank", Handler: "MPI_ERRORS_ARE_FATAL",
				Location: &checks.Location{File: "/work/app/src/main.c", Line: 12, Function: "main"}},
			{Ranks: []int{1}, How: report.MPIEnded, ExitCode: &six},
			{Ranks: []int{2}, How: report.Vanished},
		}},
	}
}

// finalizedReport: every rank finalized.
func finalizedReport() *report.Report {
	return &report.Report{Job: report.Job{Size: 2}, Reported: []int{0, 1},
		Outcome: report.Outcome{Ranks: []report.RankEnd{{Ranks: []int{0, 1}, How: report.Finalized}}}}
}

// hostsReport is outcomeReport's job run across hosts: each line of the
// outcome names its ranks' hosts, and the JSON lists the hosts.
func hostsReport() *report.Report {
	r := outcomeReport()
	r.Outcome.Hosts = []report.HostRanks{{Host: "node1", Ranks: []int{0, 1, 2}}, {Host: "node2", Ranks: []int{3, 4}}}
	return r
}

func TestOutcome(t *testing.T) {
	for _, tt := range []struct {
		name string
		rep  *report.Report
	}{{"ended", outcomeReport()}, {"finalized", finalizedReport()}, {"mpifatal", mpiFatalReport()}, {"hosts", hostsReport()}} {
		t.Run(tt.name, func(t *testing.T) {
			golden.Check(t, Plain().Report(tt.rep, "/work/app")+"\n")
		})
	}
}

func TestOutcomeSummary(t *testing.T) {
	got := Plain().ReportSummary(outcomeReport())
	for _, want := range []string{
		"rank 1 died (signal 11, SIGSEGV) at fill.c:8 in fill",
		"rank 3 called MPI_Abort(MPI_COMM_WORLD, 3) at main.c:31 in main",
		"rank 4 exited without MPI_Finalize at main.c:40 in main",
		"ranks 0,2 ended before MPI_Finalize",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "rank 4 died") {
		t.Errorf("a rank that exited without MPI_Finalize is said to have died:\n%s", got)
	}
}

func TestOutcomeJSON(t *testing.T) {
	for _, tt := range []struct {
		name string
		rep  *report.Report
	}{{"ended", outcomeReport()}, {"finalized", finalizedReport()}, {"mpifatal", mpiFatalReport()}, {"hosts", hostsReport()}} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ReportJSON(tt.rep)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, string(b))
			var doc struct {
				Version int `json:"version"`
				Outcome struct {
					Size  int                `json:"size"`
					Ranks []report.RankEnd   `json:"ranks"`
					Hosts []report.HostRanks `json:"hosts"`
				} `json:"outcome"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range doc.Outcome.Ranks {
				n += len(e.Ranks)
			}
			if doc.Version != 2 || n != doc.Outcome.Size {
				t.Errorf("version %d, %d ranks in the outcome of a job of %d", doc.Version, n, doc.Outcome.Size)
			}
			if !reflect.DeepEqual(doc.Outcome.Hosts, tt.rep.Outcome.Hosts) {
				t.Errorf("hosts %+v, want %+v", doc.Outcome.Hosts, tt.rep.Outcome.Hosts)
			}
		})
	}
}

func TestOutcomeSARIF(t *testing.T) {
	for _, tt := range []struct {
		name string
		rep  *report.Report
	}{{"ended", outcomeReport()}, {"finalized", finalizedReport()}, {"mpifatal", mpiFatalReport()}} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := SARIF(tt.rep, checks.All(), "/work/app", "v0.1.0")
			if err != nil {
				t.Fatal(err)
			}
			var doc any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			for _, e := range validateSARIF(doc) {
				t.Error(e)
			}
			var log struct {
				Runs []struct {
					OriginalURIBaseIDs any `json:"originalUriBaseIds"`
					Invocations        any `json:"invocations"`
				} `json:"runs"`
			}
			json.Unmarshal(b, &log)
			short, _ := json.MarshalIndent(log, "", "  ")
			golden.Check(t, string(short)+"\n")
		})
	}
}

// The parts of the SARIF 2.1.0 schema the outcome uses: invocation
// (§3.20), notification (§3.58), exception (§3.27), stack (§3.44) and
// stackFrame (§3.45).
func (v *sarifValidator) invocation(p string, x any) {
	v.object("invocation", p, x, map[string]func(string, any){
		"executionSuccessful": func(p string, x any) {
			if _, ok := x.(bool); !ok {
				v.errf("%s: want a boolean, got %T", p, x)
			}
		},
		"exitCode":                   v.integer(-1 << 62),
		"exitCodeDescription":        v.str,
		"exitSignalName":             v.str,
		"exitSignalNumber":           v.integer(-1 << 62),
		"processStartFailureMessage": v.str,
		"toolExecutionNotifications": v.array(v.notification),
		"properties":                 v.bag,
	}, "executionSuccessful")
}

func (v *sarifValidator) notification(p string, x any) {
	v.object("notification", p, x, map[string]func(string, any){
		"locations":  v.array(v.location),
		"message":    v.message,
		"level":      v.enum("none", "note", "warning", "error"),
		"exception":  v.exception,
		"properties": v.bag,
	}, "message")
}

func (v *sarifValidator) exception(p string, x any) {
	v.object("exception", p, x, map[string]func(string, any){
		"kind":    v.str,
		"message": v.str,
		"stack": func(p string, x any) {
			v.object("stack", p, x, map[string]func(string, any){
				"message": v.message,
				"frames": v.array(func(p string, x any) {
					v.object("stackFrame", p, x, map[string]func(string, any){"location": v.location, "module": v.str, "properties": v.bag})
				}),
				"properties": v.bag,
			}, "frames")
		},
		"properties": v.bag,
	})
}
