package dap

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/run/launch"
)

// testServer is a server without a client: what it sends goes to the
// buffer.
func testServer(cfg Config) (*Server, *bytes.Buffer) {
	out := &bytes.Buffer{}
	return NewServer(cfg, struct {
		io.Reader
		io.Writer
	}{strings.NewReader(""), out}), out
}

func fakeTools(program, mpi, shim, mpiexec string) (Tools, error) {
	return Tools{Shim: "/opt/mpidbg/lib/libmpidbg.so", MPIExec: "/usr/bin/mpiexec.mpich"}, nil
}

// vars reads a job's environment by name; a name given twice is an
// error (mpiexec's last -genv would win).
func vars(t *testing.T, env []launch.Var) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, v := range env {
		if _, dup := m[v.Name]; dup {
			t.Errorf("%s is given twice: %v", v.Name, env)
		}
		m[v.Name] = v.Value
	}
	return m
}

// TestJobConfigEnv: the launch configuration's "env" reaches the ranks,
// but an LD_PRELOAD of its own comes after the shim's in one variable:
// given apart, it would replace the shim's.
func TestJobConfigEnv(t *testing.T) {
	s, _ := testServer(Config{Tools: fakeTools})
	str := func(v string) *string { return &v }
	const shim = "/opt/mpidbg/lib/libmpidbg.so"
	for _, tc := range []struct {
		name    string
		env     map[string]*string
		preload string
	}{
		{"no env", nil, shim},
		{"user LD_PRELOAD", map[string]*string{envvar.Preload: str("/opt/libother.so"), "A": str("b"), "U": nil}, shim + ":/opt/libother.so"},
		{"empty LD_PRELOAD", map[string]*string{envvar.Preload: str("")}, shim},
		{"unset LD_PRELOAD", map[string]*string{envvar.Preload: nil}, shim},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _, err := s.jobConfig(&launchArgs{Program: "/bin/true", Env: tc.env, Checks: "-leak"})
			if err != nil {
				t.Fatal(err)
			}
			got := vars(t, cfg.Env)
			if got[envvar.Preload] != tc.preload {
				t.Errorf("LD_PRELOAD %q, want %q", got[envvar.Preload], tc.preload)
			}
			if got[envvar.Race] != "off" || got[envvar.Checks] != "-leak" {
				t.Errorf("env %v: want %s=off and %s=-leak", got, envvar.Race, envvar.Checks)
			}
			if tc.env["A"] != nil && got["A"] != "b" {
				t.Errorf("A=%q, want b", got["A"])
			}
			if _, ok := got["U"]; ok {
				t.Errorf("U (null in env) is set")
			}
		})
	}
}

// TestJobConfigChecks: "checks" is checked as mpidbg run's --checks is.
func TestJobConfigChecks(t *testing.T) {
	s, _ := testServer(Config{Tools: fakeTools})
	for _, tc := range []struct{ checks, err string }{
		{"", ""},
		{"-leak,-overlap", ""},
		{"leak", `checks "leak": "leak": want -CATEGORY, a category to turn off`},
		{"-leaks", `checks "-leaks": unknown category "leaks" (categories: argument, `},
	} {
		_, _, err := s.jobConfig(&launchArgs{Program: "/bin/true", Checks: tc.checks})
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("checks %q: %v", tc.checks, err)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("checks %q: %v, want %s...", tc.checks, err, tc.err)
		}
	}
}

// TestLaunchForms: the values of launch-forms.json, which the extension's
// config.validate is tested against too (extensions/vscode/test), are
// taken and refused by the adapter as the file says.
func TestLaunchForms(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "extensions", "vscode", "test", "launch-forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	var forms struct {
		Base                      map[string]any
		Accepted, Refused, Absent map[string][]json.RawMessage
	}
	if err := json.Unmarshal(b, &forms); err != nil {
		t.Fatal(err)
	}
	s, _ := testServer(Config{Tools: fakeTools})
	// takes is what onLaunchRequest does with the configuration before
	// it starts anything.
	takes := func(attr string, v json.RawMessage) error {
		c := map[string]any{attr: v}
		for k, bv := range forms.Base {
			if k != attr {
				c[k] = bv
			}
		}
		raw, _ := json.Marshal(c)
		var a launchArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return err
		}
		if _, _, err := s.jobConfig(&a); err != nil {
			return err
		}
		_, err := parseAttachTimeout(a.AttachTimeout)
		return err
	}
	n := 0
	for _, sec := range []struct {
		name   string
		values map[string][]json.RawMessage
		ok     bool
	}{{"accepted", forms.Accepted, true}, {"refused", forms.Refused, false}, {"absent", forms.Absent, true}} {
		for attr, values := range sec.values {
			for _, v := range values {
				n++
				if err := takes(attr, v); (err == nil) != sec.ok {
					t.Errorf("%s %s %s: error %v", sec.name, attr, v, err)
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("%d values: launch-forms.json is not read right", n)
	}
}
