package dap

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/internal/envvar"
)

// TestErrorIDsUnique: every error id constant in errors.go has its own
// number.
func TestErrorIDsUnique(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(repoRoot(t), "dap", "errors.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	n := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, sp := range g.Specs {
			v := sp.(*ast.ValueSpec)
			for i, name := range v.Names {
				lit, ok := v.Values[i].(*ast.BasicLit)
				if !ok {
					t.Errorf("%s: not a literal number", name.Name)
					continue
				}
				if other, dup := seen[lit.Value]; dup {
					t.Errorf("error id %s is both %s and %s", lit.Value, other, name.Name)
				}
				seen[lit.Value] = name.Name
				n++
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d error ids: the test no longer reads errors.go right", n)
	}
}

// TestBadRequests: malformed and unknown requests, and launch
// configurations that cannot work, get error responses; the server goes
// on serving.
func TestBadRequests(t *testing.T) {
	c := start(t, Config{Tools: func(program, mpi, shim, mpiexec string) (Tools, error) {
		// as cmd/mpidbg's: a bad "mpi" and a missing shim are errors
		if mpi != "" && mpi != "mpich" && mpi != "openmpi" {
			return Tools{}, fmt.Errorf("--mpi unknown MPI %q: want mpich or openmpi", mpi)
		}
		return Tools{}, errors.New("the shim /nonexistent.so is missing")
	}})
	expectFail := func(command string, args any, want string) {
		t.Helper()
		seq := c.send(command, args)
		m, _ := c.wait("response to "+command, 10*time.Second, 0, func(m dap.Message) bool {
			r, ok := m.(dap.ResponseMessage)
			return ok && r.GetResponse().RequestSeq == seq
		})
		r := m.(dap.ResponseMessage).GetResponse()
		if r.Success || !strings.Contains(r.Message, want) {
			t.Errorf("%s %v: success %v message %q, want a failure saying %q", command, args, r.Success, r.Message, want)
		}
	}
	c.call("initialize", map[string]any{"adapterID": "mpidbg"})
	expectFail("frobnicate", nil, "does not support")
	expectFail("launch", map[string]any{}, "missing \"program\"")
	expectFail("launch", map[string]any{"program": "/nonexistent/app"}, "no such file")
	expectFail("launch", map[string]any{"program": "/bin/true", "np": -2}, "at least 1")
	expectFail("launch", map[string]any{"program": "/bin/true", "np": 2000000000}, "at most 4194304 ranks")
	expectFail("launch", map[string]any{"program": "/bin/true", "np": 2, "ranks": "0,5"}, "rank 5 is not in the job")
	expectFail("launch", map[string]any{"program": "/bin/true", "ranks": []string{"x"}}, "\"ranks\"")
	expectFail("launch", map[string]any{"program": "/bin/true", "checks": "-leaks"}, "unknown category \"leaks\"")
	expectFail("launch", map[string]any{"program": "/bin/true"}, "shim")
	expectFail("launch", map[string]any{"program": "/bin/true", "mpi": "lam"}, "unknown MPI")
	expectFail("launch", map[string]any{"program": 42}, `launch: "program" must be a string, got 42`)
	t.Setenv(envvar.Checks, "-leaks") // the ranks would inherit it
	expectFail("launch", map[string]any{"program": "/bin/true"}, "MPIDBG_CHECKS=\"-leaks\" in the adapter's environment: unknown category")
	expectFail("attach", map[string]any{}, "missing \"pid\"")
	expectFail("attach", map[string]any{"pid": 1 << 30}, "no process")
	expectFail("stackTrace", "not an object", `stackTrace: "arguments" must be an object, got "not an object"`)
	expectFail("stackTrace", map[string]any{"threadId": 1}, "no job")
	expectFail("variables", map[string]any{"variablesReference": 99}, "no job")
	c.call("threads", nil) // still serving
	c.call("disconnect", nil)
}

// TestParseRanks covers the "ranks" forms.
func TestParseRanks(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		np   int
		want string
		err  string
	}{
		{"", 3, "0,1,2", ""},
		{`"all"`, 2, "0,1", ""},
		{`[2, 0, 2]`, 4, "0,2", ""},
		{`"0,2-3"`, 4, "0,2,3", ""},
		{`"3-2"`, 4, "", "not a rank or a range"},
		{`"1"`, 1, "", "not in the job"},
		{`[]`, 2, "", "no rank selected"},
		{`{}`, 2, "", "want a list"},
	} {
		got, err := parseRanks([]byte(tc.raw), tc.np)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("parseRanks(%s, %d): %v, want error %q", tc.raw, tc.np, err, tc.err)
		case tc.err == "" && (err != nil || rankList(got) != tc.want):
			t.Errorf("parseRanks(%s, %d) = %v, %v; want %s", tc.raw, tc.np, got, err, tc.want)
		}
	}
}
