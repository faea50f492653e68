package pretty

import (
	"encoding/json"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/run/report"
)

// TestSARIFSuppressed: a finding suppression rules took out of the report
// is a result still, after the others, with an external suppression that
// names the rule; a finding that is off by default is a rule with
// defaultConfiguration.enabled false. The terminal summary and the JSON
// count it.
func TestSARIFSuppressed(t *testing.T) {
	f := func(id string, line int) report.Finding {
		return report.Finding{Finding: checks.Finding{ID: id, Category: checks.CatMessageRace, Severity: checks.SevError,
			Message: id + " here", Ranks: []int{0}, Location: checks.Location{File: "/src/master.c", Line: line}}, Count: 1}
	}
	rep := &report.Report{Job: report.Job{Size: 3}, Reported: []int{0, 1, 2}, Findings: []report.Finding{f("message-race", 12)},
		Suppressed: []report.Suppressed{{Finding: f("message-race", 40),
			Rule: report.Rule{Source: "app/.mpidbg-suppress:2", What: "message-race", File: "master.c", Line: 40}}}}
	info, _ := checks.Lookup("message-race-info")
	race, _ := checks.Lookup("message-race")
	b, err := SARIF(rep, []checks.Entry{race, info}, "/src", "test")
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID     string
						Config struct {
							Enabled *bool `json:"enabled"`
						} `json:"defaultConfiguration"`
					}
				}
			}
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine int }
					}
				}
				Suppressions []struct{ Kind, Justification string }
			}
		}
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Results) != 2 || len(run.Results[0].Suppressions) != 0 || len(run.Results[1].Suppressions) != 1 ||
		run.Results[1].Locations[0].PhysicalLocation.Region.StartLine != 40 {
		t.Fatalf("results: %s", b)
	}
	if s := run.Results[1].Suppressions[0]; s.Kind != "external" ||
		s.Justification != "suppressed by app/.mpidbg-suppress:2 (message-race master.c:40)" {
		t.Errorf("suppression %+v", s)
	}
	rules := run.Tool.Driver.Rules
	if rules[0].ID != "message-race" || rules[0].Config.Enabled != nil || rules[1].ID != "message-race-info" ||
		rules[1].Config.Enabled == nil || *rules[1].Config.Enabled {
		t.Errorf("rules' enabled: %s", b)
	}
	js, err := ReportJSON(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Suppressed int }
	if err := json.Unmarshal(js, &doc); err != nil || doc.Suppressed != 1 {
		t.Errorf("JSON: %v, suppressed %d:\n%s", err, doc.Suppressed, js)
	}
	if got := New(nil, false).ReportSummary(rep); got != "mpidbg: 1 error in 1 of 3 ranks; 1 suppressed" {
		t.Errorf("summary %q", got)
	}
}
