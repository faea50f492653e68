package pretty

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/run/report"
)

// TestRefused: connections the launcher turned away are in the summary
// line, the JSON outcome and the SARIF invocation's notifications, and
// nowhere when there were none.
func TestRefused(t *testing.T) {
	for _, refused := range []report.Refused{{}, {NoToken: 1}, {NoToken: 3, Surplus: 1}} {
		rep := finalizedReport()
		rep.Refused = refused
		var want []string
		if refused.NoToken == 1 {
			want = append(want, "1 connection refused: no valid job token")
		} else if refused.NoToken > 1 {
			want = append(want, "3 connections refused: no valid job token")
		}
		if refused.Surplus > 0 {
			want = append(want, "1 connection refused: every rank of the job had connected")
		}

		sum := Plain().ReportSummary(rep)
		for _, w := range want {
			if !strings.Contains(sum, "; "+w) {
				t.Errorf("%+v: summary %q lacks %q", refused, sum, w)
			}
		}
		if len(want) == 0 && strings.Contains(sum, "refused") {
			t.Errorf("nothing refused, the summary says: %q", sum)
		}

		b, err := ReportJSON(rep)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Outcome map[string]json.RawMessage `json:"outcome"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		raw, ok := doc.Outcome["refused"]
		var got report.Refused
		if ok {
			json.Unmarshal(raw, &got)
		}
		if ok != (len(want) > 0) || got != refused {
			t.Errorf("%+v: JSON outcome has refused %s (%v)", refused, raw, ok)
		}

		b, err = SARIF(rep, checks.All(), "/work/app", "v0.1.0")
		if err != nil {
			t.Fatal(err)
		}
		var anyDoc any
		json.Unmarshal(b, &anyDoc)
		for _, e := range validateSARIF(anyDoc) {
			t.Error(e)
		}
		var log struct {
			Runs []struct {
				Invocations []struct {
					Notifications []struct {
						Level   string `json:"level"`
						Message struct {
							Text string `json:"text"`
						} `json:"message"`
					} `json:"toolExecutionNotifications"`
				} `json:"invocations"`
			} `json:"runs"`
		}
		json.Unmarshal(b, &log)
		var texts []string
		for _, n := range log.Runs[0].Invocations[0].Notifications {
			if strings.Contains(n.Message.Text, "refused") {
				if n.Level != "warning" {
					t.Errorf("%+v: notification %q at level %s, want warning", refused, n.Message.Text, n.Level)
				}
				texts = append(texts, n.Message.Text)
			}
		}
		if strings.Join(texts, "|") != strings.Join(want, "|") {
			t.Errorf("%+v: SARIF notifications %q, want %q", refused, texts, want)
		}
	}
}
