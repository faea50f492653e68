package pretty

import (
	"encoding/json"
	"fmt"
	"github.com/mpidbg/mpidbg/internal/golden"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/muesli/termenv"
)

// sampleReport is a job of 64 ranks: an error on all of them with a path
// and a related location, an overlap error on two, a leak warning
// reported often by one rank, an unresolved site, an id the catalogue
// does not know; rank 2 died of SIGSEGV, rank 9 ended early, ranks 62-63
// never connected.
func sampleReport() *report.Report {
	all := make([]int, 62)
	for i := range all {
		all[i] = i
	}
	entry := func(id string) checks.Entry { e, _ := checks.Lookup(id); return e }
	f := func(id, msg, call string, ranks []int, count int, loc checks.Location) report.Finding {
		e := entry(id)
		return report.Finding{Finding: checks.Finding{ID: id, Category: e.Category, Severity: e.Severity, Message: msg,
			Ranks: ranks, Call: call, Location: loc, Rule: e.Rule}, Count: count}
	}
	notCommitted := f("type-not-committed", "MPI_Send: datatype 0x8c000001 (s_type, STRUCT) is used before MPI_Type_commit", "MPI_Send",
		all, 62, checks.Location{File: "/work/app/src/halo.c", Line: 42, Function: "exchange"})
	notCommitted.Related = []checks.Related{{Message: "s_type was made here", Location: checks.Location{File: "/work/app/src/types.c", Line: 17, Function: "make_types"}}}
	overlap := f("recv-type-overlap", "MPI_Recv: elements 3 and 5 of the receive type overlap at byte 12", "MPI_Recv",
		[]int{0, 2}, 2, checks.Location{File: "/work/app/src/halo.c", Line: 57, Function: "exchange"})
	overlap.Path = "s_type(STRUCT)[2][5](CHAR)"
	overlap.Related = []checks.Related{{Message: "the type was resized here", Location: checks.Location{File: "/usr/include/lib.h", Line: 3}}}
	leak := f("leak-type", "datatype 0x8c000002 (column) was never freed", "MPI_Finalize",
		[]int{5}, 1000, checks.Location{File: "/work/app/src/main.c", Line: 88, Function: "main"})
	unresolved := f("commit-twice", "MPI_Type_commit: datatype 0x8c000003 is committed already", "MPI_Type_commit",
		[]int{1, 3, 4, 5, 9}, 5, checks.Location{})
	unresolved.Site = checks.Site{Module: "/work/app/app", Offset: 0x1a2b}
	unknown := report.Finding{Finding: checks.Finding{ID: "future-check", Category: checks.CatMessageRace, Severity: checks.SevInfo,
		Message: "a check this catalogue does not know", Ranks: []int{7}, Call: "MPI_Irecv", Location: checks.Location{Function: "poll"}}, Count: 1}
	return &report.Report{
		Job:      report.Job{Size: 64, Exit: "exit status 11"},
		Reported: all,
		Findings: []report.Finding{notCommitted, overlap, unresolved, leak, unknown},
		Died:     []report.Death{{Ranks: []int{2}, Status: "signal 11"}, {Ranks: []int{9}}},
		Silent:   []int{62, 63},
		Notes:    []string{"some locations have no file and line: build the program with -g"},
	}
}

func cleanReport() *report.Report {
	return &report.Report{Job: report.Job{Size: 4}, Reported: []int{0, 1, 2, 3}}
}

func TestReport(t *testing.T) {
	died := cleanReport()
	died.Died = []report.Death{{Ranks: []int{1, 2, 3}, Status: "signal 9"}, {Ranks: []int{0}, Status: "signal 6", After: true}}
	died.Interrupted = "SIGINT"
	one := &report.Report{Job: report.Job{Size: 1}, Reported: []int{0}, Findings: sampleReport().Findings[3:4]}
	tests := []struct {
		name string
		rep  *report.Report
	}{
		{"findings", sampleReport()},
		{"clean", cleanReport()},
		{"clean_one_rank", &report.Report{Job: report.Job{Size: 1}, Reported: []int{0}}},
		{"clean_but_died", died},
		{"one_warning", one},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Plain().Report(tt.rep, "/work/app")
			if strings.Contains(got, "\x1b") {
				t.Errorf("plain rendering holds an escape sequence")
			}
			golden.Check(t, got+"\n")
		})
	}
	t.Run("color", func(t *testing.T) {
		got := NewProfile(termenv.ANSI).Report(sampleReport(), "/work/app")
		if !strings.Contains(got, "\x1b[") {
			t.Errorf("ANSI rendering holds no escape sequence")
		}
		golden.Check(t, got+"\n")
	})
}

func TestReportSummary(t *testing.T) {
	rep := func(size int, sevs []checks.Severity, ranks ...int) *report.Report {
		r := &report.Report{Job: report.Job{Size: size}}
		for _, s := range sevs {
			r.Findings = append(r.Findings, report.Finding{Finding: checks.Finding{Severity: s, Ranks: ranks}, Count: 1})
		}
		return r
	}
	E, W, I := checks.SevError, checks.SevWarning, checks.SevInfo
	tests := []struct {
		rep  *report.Report
		want string
	}{
		{rep(4, nil), "mpidbg: no findings (4 ranks)"},
		{rep(0, nil), "mpidbg: no findings (0 ranks)"},
		{rep(4, []checks.Severity{E, E, E, W}, 0, 1, 2, 3), "mpidbg: 3 errors, 1 warning in 4 ranks"},
		{rep(4, []checks.Severity{E}, 1), "mpidbg: 1 error in 1 of 4 ranks"},
		{rep(2, []checks.Severity{W, W, I}, 0, 1), "mpidbg: 2 warnings, 1 info in 2 ranks"},
		{rep(0, []checks.Severity{I, I}, 0), "mpidbg: 2 info in 1 rank"},
		{rep(3, []checks.Severity{"odd"}, 0), "mpidbg: 1 finding in 1 rank"},
	}
	for _, tt := range tests {
		if got := Plain().ReportSummary(tt.rep); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestReportJSON(t *testing.T) {
	for _, tt := range []struct {
		name string
		rep  *report.Report
	}{{"findings", sampleReport()}, {"clean", cleanReport()}} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ReportJSON(tt.rep)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, string(b))
			// exactly {"version":2,"findings":[...],"outcome":{...}}, with
			// "notes" when there are any; every finding carries the
			// documented fields.
			var top map[string]json.RawMessage
			if err := json.Unmarshal(b, &top); err != nil {
				t.Fatal(err)
			}
			want := []string{"findings", "outcome", "version"}
			if len(tt.rep.Notes) > 0 {
				want = []string{"findings", "notes", "outcome", "version"}
			}
			if keys := slices.Sorted(mapKeys(top)); !slices.Equal(keys, want) || string(top["version"]) != "2" {
				t.Errorf("top level: got keys %v, version %s", keys, top["version"])
			}
			var fs []map[string]any
			if err := json.Unmarshal(top["findings"], &fs); err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				for _, k := range []string{"id", "category", "severity", "message", "ranks", "call", "location"} {
					if _, ok := f[k]; !ok {
						t.Errorf("finding %v lacks %q", f["id"], k)
					}
				}
				if s := f["severity"]; s != "error" && s != "warning" && s != "info" {
					t.Errorf("finding %v: severity %v", f["id"], s)
				}
			}
		})
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestSARIF(t *testing.T) {
	for _, tt := range []struct {
		name string
		rep  *report.Report
	}{{"findings", sampleReport()}, {"clean", cleanReport()}} {
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
			// The golden file holds the results; the rules are the catalogue.
			var log struct {
				Runs []struct {
					OriginalURIBaseIDs any `json:"originalUriBaseIds"`
					Results            any `json:"results"`
				} `json:"runs"`
			}
			json.Unmarshal(b, &log)
			short, _ := json.MarshalIndent(log, "", "  ")
			golden.Check(t, string(short)+"\n")
		})
	}
}

// sampleSARIF is sampleReport as SARIF, decoded.
func sampleSARIF(t *testing.T) sarifLog {
	t.Helper()
	b, err := SARIF(sampleReport(), checks.All(), "/work/app", "")
	if err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	return log
}

// TestSARIFRules: one rule per catalogue entry with its texts, and a
// bare rule for an unknown id, which its result points to.
func TestSARIFRules(t *testing.T) {
	log := sampleSARIF(t)
	rules := log.Runs[0].Tool.Driver.Rules
	all := checks.All()
	if len(rules) != len(all)+1 {
		t.Fatalf("got %d rules, want %d", len(rules), len(all)+1)
	}
	for i, e := range all {
		r := rules[i]
		if r.ID != e.ID || r.ShortDescription.Text != e.Title || r.FullDescription.Text != e.Rule || r.Help.Text != e.Doc ||
			r.Properties["category"] != string(e.Category) || r.DefaultConfiguration.Level != sarifLevel(e.Severity) {
			t.Errorf("rule %d: got %+v, want the catalogue entry %s", i, r, e.ID)
		}
	}
	if last := rules[len(rules)-1]; last.ID != "future-check" {
		t.Errorf("last rule: got %q, want future-check", last.ID)
	}
	for _, res := range log.Runs[0].Results {
		if rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s: ruleIndex %d names %s", res.RuleID, res.RuleIndex, rules[res.RuleIndex].ID)
		}
	}
}

func TestArtifact(t *testing.T) {
	tests := []struct{ file, uri, base string }{
		{"/work/app/src/a.c", "src/a.c", srcRoot},
		{"/work/app/src/my file.c", "src/my%20file.c", srcRoot},
		{"/usr/include/mpi.h", "file:///usr/include/mpi.h", ""},
		{"rel/b.c", "rel/b.c", srcRoot},
		{"c:d/x.c", "./c:d/x.c", srcRoot},
	}
	for _, tt := range tests {
		got := artifact(tt.file, "/work/app")
		if got.URI != tt.uri || got.URIBaseID != tt.base {
			t.Errorf("artifact(%q): got %+v, want %q base %q", tt.file, got, tt.uri, tt.base)
		}
	}
	if got := dirURI("/"); got != "file:///" {
		t.Errorf("dirURI(/): got %q", got)
	}
}

// validateSARIF checks doc against the parts of the SARIF 2.1.0 schema
// (sarif-schema-2.1.0.json) that mpidbg uses: for each object kind the
// properties the schema allows (it says additionalProperties: false
// everywhere except property bags), the required ones, types, enums and
// minimums.
func validateSARIF(doc any) []string {
	v := &sarifValidator{}
	v.object("sarifLog", "", doc, map[string]func(string, any){
		"$schema": func(p string, x any) {
			if x != SARIFSchema {
				v.errf("%s: got %v, want %s", p, x, SARIFSchema)
			}
		},
		"version": func(p string, x any) {
			if x != "2.1.0" {
				v.errf("%s: got %v, want 2.1.0", p, x)
			}
		},
		"runs":       v.array(v.run),
		"properties": v.bag,
	}, "version", "runs")
	return v.errs
}

type sarifValidator struct{ errs []string }

func (v *sarifValidator) errf(format string, args ...any) {
	v.errs = append(v.errs, fmt.Sprintf(format, args...))
}

// object checks that x is an object whose keys are among props, with the
// required ones present, and checks each value.
func (v *sarifValidator) object(kind, path string, x any, props map[string]func(string, any), required ...string) {
	m, ok := x.(map[string]any)
	if !ok {
		v.errf("%s: %s must be an object, got %T", path, kind, x)
		return
	}
	for k, val := range m {
		check, ok := props[k]
		if !ok {
			v.errf("%s: %s has no property %q", path, kind, k)
			continue
		}
		check(path+"."+k, val)
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			v.errf("%s: %s requires %q", path, kind, k)
		}
	}
}

func (v *sarifValidator) array(item func(string, any)) func(string, any) {
	return func(p string, x any) {
		a, ok := x.([]any)
		if !ok {
			v.errf("%s: want an array, got %T", p, x)
			return
		}
		for i, e := range a {
			item(fmt.Sprintf("%s[%d]", p, i), e)
		}
	}
}

func (v *sarifValidator) str(p string, x any) {
	if s, ok := x.(string); !ok || s == "" {
		v.errf("%s: want a non-empty string, got %v", p, x)
	}
}

func (v *sarifValidator) integer(min float64) func(string, any) {
	return func(p string, x any) {
		n, ok := x.(float64)
		if !ok || n != float64(int64(n)) || n < min {
			v.errf("%s: want an integer >= %v, got %v", p, min, x)
		}
	}
}

func (v *sarifValidator) enum(vals ...string) func(string, any) {
	return func(p string, x any) {
		if s, ok := x.(string); !ok || !slices.Contains(vals, s) {
			v.errf("%s: want one of %v, got %v", p, vals, x)
		}
	}
}

func (v *sarifValidator) bag(p string, x any) {
	if _, ok := x.(map[string]any); !ok {
		v.errf("%s: a property bag must be an object, got %T", p, x)
	}
}

func (v *sarifValidator) run(p string, x any) {
	v.object("run", p, x, map[string]func(string, any){
		"tool": func(p string, x any) {
			v.object("tool", p, x, map[string]func(string, any){"driver": v.toolComponent, "properties": v.bag}, "driver")
		},
		"originalUriBaseIds": func(p string, x any) {
			m, ok := x.(map[string]any)
			if !ok {
				v.errf("%s: want an object", p)
				return
			}
			for k, a := range m {
				v.artifactLocation(p+"."+k, a)
				u, _ := a.(map[string]any)["uri"].(string)
				if pu, err := url.Parse(u); err != nil || !pu.IsAbs() || !strings.HasSuffix(u, "/") {
					v.errf("%s.%s: a base URI must be absolute and end with a slash, got %q", p, k, u)
				}
			}
		},
		"addresses":   v.array(v.address),
		"results":     v.array(v.result),
		"invocations": v.array(v.invocation), // outcome_test.go
		"properties":  v.bag,
	}, "tool")
}

func (v *sarifValidator) address(p string, x any) {
	v.object("address", p, x, map[string]func(string, any){
		"absoluteAddress": v.integer(-1), "relativeAddress": v.integer(math.Inf(-1)), "length": v.integer(math.Inf(-1)),
		"offsetFromParent": v.integer(math.Inf(-1)), "index": v.integer(-1), "parentIndex": v.integer(-1),
		"kind": v.str, "name": v.str, "fullyQualifiedName": v.str, "properties": v.bag,
	})
}

func (v *sarifValidator) toolComponent(p string, x any) {
	v.object("toolComponent", p, x, map[string]func(string, any){
		"name":           v.str,
		"version":        v.str,
		"informationUri": v.str,
		"rules":          v.array(v.reportingDescriptor),
		"properties":     v.bag,
	}, "name")
}

func (v *sarifValidator) reportingDescriptor(p string, x any) {
	v.object("reportingDescriptor", p, x, map[string]func(string, any){
		"id":               v.str,
		"name":             v.str,
		"shortDescription": v.multiformatMessageString,
		"fullDescription":  v.multiformatMessageString,
		"help":             v.multiformatMessageString,
		"defaultConfiguration": func(p string, x any) {
			v.object("reportingConfiguration", p, x, map[string]func(string, any){
				"level": v.enum("none", "note", "warning", "error"), "enabled": func(string, any) {}, "properties": v.bag,
			})
		},
		"properties": v.bag,
	}, "id")
}

func (v *sarifValidator) multiformatMessageString(p string, x any) {
	v.object("multiformatMessageString", p, x, map[string]func(string, any){"text": v.str, "markdown": v.str, "properties": v.bag}, "text")
}

func (v *sarifValidator) message(p string, x any) {
	// The schema's anyOf: text or id; mpidbg always gives text.
	v.object("message", p, x, map[string]func(string, any){"text": v.str, "id": v.str, "properties": v.bag}, "text")
}

func (v *sarifValidator) result(p string, x any) {
	v.object("result", p, x, map[string]func(string, any){
		"ruleId":           v.str,
		"ruleIndex":        v.integer(-1),
		"level":            v.enum("none", "note", "warning", "error"),
		"message":          v.message,
		"locations":        v.array(v.location),
		"relatedLocations": v.array(v.location),
		"occurrenceCount":  v.integer(1),
		"properties":       v.bag,
	}, "message")
}

func (v *sarifValidator) location(p string, x any) {
	v.object("location", p, x, map[string]func(string, any){
		"id": v.integer(-1),
		"physicalLocation": func(p string, x any) {
			// The schema's anyOf: address or artifactLocation; mpidbg gives the
			// artifact, and an address in it for a site without a line.
			v.object("physicalLocation", p, x, map[string]func(string, any){
				"artifactLocation": v.artifactLocation,
				"region": func(p string, x any) {
					v.object("region", p, x, map[string]func(string, any){"startLine": v.integer(1), "properties": v.bag}, "startLine")
				},
				"address":    v.address,
				"properties": v.bag,
			}, "artifactLocation")
		},
		"logicalLocations": v.array(func(p string, x any) {
			v.object("logicalLocation", p, x, map[string]func(string, any){"name": v.str, "kind": v.str, "properties": v.bag})
		}),
		"message":    v.message,
		"properties": v.bag,
	})
}

func (v *sarifValidator) artifactLocation(p string, x any) {
	v.object("artifactLocation", p, x, map[string]func(string, any){
		"uri": func(p string, x any) {
			s, ok := x.(string)
			if _, err := url.Parse(s); !ok || err != nil {
				v.errf("%s: want a URI reference, got %v", p, x)
			}
		},
		"uriBaseId":  v.str,
		"properties": v.bag,
	})
}

// TestValidateSARIF: the validator catches what it should.
func TestValidateSARIF(t *testing.T) {
	bad := map[string]any{
		"$schema": "http://example.com", "version": "2.0.0",
		"runs": []any{map[string]any{
			"tool":    map[string]any{"driver": map[string]any{"rules": []any{map[string]any{"name": "x"}}}},
			"results": []any{map[string]any{"level": "fatal", "locations": []any{map[string]any{"physicalLocation": map[string]any{"region": map[string]any{"startLine": 0.0}}}}, "extra": 1.0}},
		}},
	}
	got := validateSARIF(bad)
	for _, want := range []string{"$schema", "version", "requires \"name\"", "requires \"id\"", "level", "startLine", "requires \"artifactLocation\"", "no property \"extra\"", "requires \"message\""} {
		if !slices.ContainsFunc(got, func(e string) bool { return strings.Contains(e, want) }) {
			t.Errorf("the validator missed %s; it said %q", want, got)
		}
	}
}

// TestSARIFNotes: the report's notes about the run are notifications of
// its invocation, at level note.
func TestSARIFNotes(t *testing.T) {
	log := sampleSARIF(t)
	var got []string
	for _, n := range log.Runs[0].Invocations[0].ToolExecutionNotifications {
		if n.Level == "note" && n.Exception == nil && n.Properties == nil {
			got = append(got, n.Message.Text)
		}
	}
	if want := sampleReport().Notes; !slices.Equal(got, want) {
		t.Errorf("notes as notifications: got %q, want %q", got, want)
	}
}
