package dap

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-dap"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// testClient is a DAP client over pipes to an in-process Server: it
// keeps every message, and the tests wait for the ones they expect.
type testClient struct {
	t    *testing.T
	w    io.Writer
	seq  int
	mu   sync.Mutex
	msgs []dap.Message
	more chan struct{}
	done chan struct{}
}

// repoRoot is the source tree's root.
func repoRoot(t *testing.T) string { return testenv.Root() }

// fixture builds testprogs/dap/NAME.c with m and returns the program's
// path, and a server config whose job tools are m's; it skips without m,
// gdb and the built tree (fails instead under make test's
// MPIDBG_REQUIRE_MPI).
func fixture(t *testing.T, m testMPI, name string) (string, Config) {
	t.Helper()
	root := repoRoot(t)
	var missing []string
	tools, err := testenv.FindMPI(m.lib)
	if err != nil {
		missing = append(missing, err.Error())
	}
	if _, err := exec.LookPath("gdb"); err != nil {
		missing = append(missing, "gdb")
	}
	if _, err := os.Stat(filepath.Join(root, "bin", "mpidbg")); err != nil {
		missing = append(missing, "bin/mpidbg (make build)")
	}
	shimPath, err := testenv.FindShim(m.lib)
	var stale *testenv.StaleError
	switch {
	case errors.As(err, &stale):
		t.Fatal(err)
	case err != nil:
		missing = append(missing, err.Error())
	}
	if len(missing) > 0 {
		testenv.Missing(t, testenv.RequireMPI, "these are missing: %s", strings.Join(missing, ", "))
	}
	prog := filepath.Join(t.TempDir(), name)
	src, cc, flags := fixtureSource(t, name), tools.CC, []string{"-g", "-O0", "-Wno-stringop-overflow"}
	if filepath.Ext(src) == ".f90" {
		if cc, err = exec.LookPath(mpilib.FortranCompiler(m.lib)); err != nil {
			testenv.Missing(t, testenv.RequireMPI, "%s is missing", mpilib.FortranCompiler(m.lib))
		}
		flags = []string{"-g", "-O0", "-J", t.TempDir()} // its .mod files out of the source tree
	}
	if out, err := exec.Command(cc, append(flags, "-o", prog, src)...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, src, err, out)
	}
	cfg := Config{Gdb: "gdb", Script: filepath.Join(root, "extensions", "gdb", "mpidbg-gdb.py"),
		Mpidbg: filepath.Join(root, "bin", "mpidbg"),
		Tools: func(program, mpi, shim, mpiexec string) (Tools, error) {
			if mpi != "" && mpi != m.name {
				return Tools{}, fmt.Errorf("the test runs %s, the configuration asks for %s", m.name, mpi)
			}
			if shim == "" {
				shim = shimPath
			}
			if mpiexec == "" {
				mpiexec = tools.Exec
			}
			p, err := exec.LookPath(mpiexec)
			return Tools{Shim: shim, MPIExec: p}, err
		}}
	if os.Getenv(envvar.DAPLog) != "" {
		f, err := os.OpenFile(os.Getenv(envvar.DAPLog), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err == nil {
			t.Cleanup(func() { f.Close() })
			cfg.Log = NewLogger(f)
		}
	}
	return prog, cfg
}

// fixtureSource is testprogs/dap/NAME.c, or NAME.f90 for a Fortran one.
func fixtureSource(t *testing.T, name string) string {
	src := filepath.Join(repoRoot(t), "testprogs", "dap", name+".c")
	if f := strings.TrimSuffix(src, ".c") + ".f90"; fileExists(f) {
		return f
	}
	return src
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// markerLine is the line of src that holds marker (// BREAK, ...; ! BREAK
// in Fortran).
func markerLine(t *testing.T, name, marker string) int {
	src := fixtureSource(t, name)
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	comment := "// "
	if filepath.Ext(src) == ".f90" {
		comment = "! "
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, comment+marker) {
			return i + 1
		}
	}
	t.Fatalf("%s has no %s marker", filepath.Base(src), marker)
	return 0
}

// start runs a Server on pipes and returns a client of it.
func start(t *testing.T, cfg Config) *testClient {
	if cfg.Log == nil {
		keepLog(t, &cfg)
	}
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	srv := NewServer(cfg, struct {
		io.Reader
		io.Writer
	}{sr, sw})
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(); err != nil {
			t.Logf("Serve: %v", err)
		}
		sw.Close()
	}()
	c := newClient(t, cr, cw)
	t.Cleanup(func() {
		cw.Close()
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			t.Errorf("the server did not end within 30 s of the client closing")
		}
	})
	return c
}

// newClient is a client that writes requests to w and reads what the
// server says from r.
func newClient(t *testing.T, r io.Reader, w io.Writer) *testClient {
	c := &testClient{t: t, w: w, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		r := bufio.NewReader(r)
		for {
			b, err := dap.ReadBaseMessage(r)
			if err != nil {
				return
			}
			m, err := dap.DecodeProtocolMessage(b)
			if err != nil {
				// a custom event (mpidbg/finding) go-dap does not know
				ev := &rawEvent{}
				if json.Unmarshal(b, ev) != nil || ev.Type != "event" {
					c.t.Errorf("undecodable message from the server: %v: %s", err, b)
					return
				}
				m = ev
			}
			c.mu.Lock()
			c.msgs = append(c.msgs, m)
			c.mu.Unlock()
			select {
			case c.more <- struct{}{}:
			default:
			}
		}
	}()
	return c
}

// send sends a request and returns its seq.
func (c *testClient) send(command string, args any) int {
	c.seq++
	req := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		req["arguments"] = args
	}
	b, _ := json.Marshal(req)
	if err := dap.WriteBaseMessage(c.w, b); err != nil {
		c.t.Fatalf("send %s: %v", command, err)
	}
	return c.seq
}

// wait returns the first message since from that ok accepts (and its
// index), failing the test after timeout.
func (c *testClient) wait(what string, timeout time.Duration, from int, ok func(dap.Message) bool) (dap.Message, int) {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		for i := from; i < len(c.msgs); i++ {
			if ok(c.msgs[i]) {
				m := c.msgs[i]
				c.mu.Unlock()
				return m, i
			}
		}
		from = max(from, len(c.msgs))
		c.mu.Unlock()
		select {
		case <-c.more:
		case <-c.done:
			c.t.Fatalf("the server ended before %s", what)
		case <-deadline:
			c.t.Fatalf("no %s within %v; messages:\n%s", what, timeout, c.dump())
		}
	}
}

func (c *testClient) dump() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, m := range c.msgs {
		j, _ := json.Marshal(m)
		if len(j) > 400 {
			j = append(j[:400], "…"...)
		}
		fmt.Fprintf(&b, "  %s\n", j)
	}
	return b.String()
}

// response waits for the response to request seq; it fails the test
// when it is an error, unless wantErr.
func (c *testClient) response(seq int, timeout time.Duration) dap.ResponseMessage {
	c.t.Helper()
	m, _ := c.wait(fmt.Sprintf("response to request %d", seq), timeout, 0, func(m dap.Message) bool {
		r, ok := m.(dap.ResponseMessage)
		return ok && r.GetResponse().RequestSeq == seq
	})
	r := m.(dap.ResponseMessage)
	if !r.GetResponse().Success {
		c.t.Fatalf("request %d (%s) failed: %s", seq, r.GetResponse().Command, r.GetResponse().Message)
	}
	return r
}

// call sends a request and waits for its successful response.
func (c *testClient) call(command string, args any) dap.ResponseMessage {
	c.t.Helper()
	return c.response(c.send(command, args), 60*time.Second)
}

// event waits for an event named name after message index from.
func (c *testClient) event(name string, from int, timeout time.Duration) (dap.EventMessage, int) {
	c.t.Helper()
	m, i := c.wait("event "+name, timeout, from, func(m dap.Message) bool {
		e, ok := m.(dap.EventMessage)
		return ok && e.GetEvent().Event == name
	})
	return m.(dap.EventMessage), i
}

func (c *testClient) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.msgs)
}

// rawEvent is an event go-dap has no type for, with its body as JSON.
type rawEvent struct {
	dap.Event
	Body json.RawMessage `json:"body"`
}

func (e *rawEvent) GetEvent() *dap.Event { return &e.Event }

// keepLog gives cfg the adapter's log in memory, shown only when the
// test fails: what gdb said and was told is what explains a stop that
// never came.
func keepLog(t *testing.T, cfg *Config) *logBuffer {
	lb := &logBuffer{}
	cfg.Log = NewLogger(lb)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the adapter's log, last lines:\n%s", lb.tail(120))
		}
	})
	return lb
}

// logBuffer keeps the adapter's log for a failing test.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// tail is the last n lines.
func (l *logBuffer) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := strings.Split(strings.TrimRight(l.b.String(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// count is how many times s is in the log.
func (l *logBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}
