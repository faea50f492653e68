package dap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-dap"
)

// TestMalformedMessages: every well-framed message gets an answer, in
// the protocol's words; the raw input is in the log; the server goes on.
func TestMalformedMessages(t *testing.T) {
	lb := &logBuffer{}
	c := start(t, Config{Log: NewLogger(lb), Tools: func(program, mpi, shim, mpiexec string) (Tools, error) {
		return Tools{}, os.ErrNotExist
	}})
	c.call("initialize", map[string]any{"adapterID": "mpidbg"})
	for _, tc := range []struct {
		raw     string
		seq     int    // the response's request_seq
		command string // and command
		want    string // in its message
		output  bool   // also told in an output event
	}{
		{`{"seq": 40, "type": "request", "command": "threads"`, 0, "", "not valid JSON", true},
		{`not json at all`, 0, "", "not valid JSON", true},
		{`[1, 2]`, 0, "", "must be a JSON object", true},
		{`{"seq": 41}`, 41, "", "no \"type\"", true},
		{`{"seq": 42, "type": "event", "event": "stopped"}`, 42, "", "takes requests, not a message of type \"event\"", true},
		{`{"seq": 43, "type": "request"}`, 43, "", "no \"command\"", false},
		{`{"seq": 44, "type": "request", "command": "stackTrace", "arguments": {"threadId": "x"}}`, 44, "stackTrace",
			`stackTrace: "threadId" must be a number, got "x"`, false},
		{`{"seq": "45", "type": "request", "command": "threads"}`, 0, "threads", `"seq" must be a number, got "45"`, true},
		{`{"seq": 46, "type": "request", "command": "launch", "arguments": {"program": "/bin/true", "np": "4"}}`, 46, "launch",
			`launch: "np" must be a number, got "4"`, false},
		{`{"seq": 47, "type": "request", "command": "launch", "arguments": {"program": "/bin/true", "np": 2.5}}`, 47, "launch",
			`launch: "np" must be a whole number, got 2.5`, false},
		{`{"seq": 48, "type": "request", "command": "launch", "arguments": {"program": "/bin/true", "args": ["-v", 3]}}`, 48, "launch",
			`launch: "args[1]" must be a string, got 3`, false},
		{`{"seq": 49, "type": "request", "command": "launch", "arguments": {"program": "/bin/true", "env": {"X": 1}}}`, 49, "launch",
			`launch: "env.X" must be a string, got 1`, false},
		{`{"seq": 50, "type": "request", "command": "attach", "arguments": {"pid": "12"}}`, 50, "attach",
			`attach: "pid" must be a number, got "12"`, false},
	} {
		from := c.count()
		if err := dap.WriteBaseMessage(c.w, []byte(tc.raw)); err != nil {
			t.Fatal(err)
		}
		m, _ := c.wait("the answer to "+tc.raw, 10*time.Second, from, func(m dap.Message) bool {
			_, ok := m.(dap.ResponseMessage)
			return ok
		})
		r := m.(dap.ResponseMessage).GetResponse()
		if r.Success || r.RequestSeq != tc.seq || r.Command != tc.command || !strings.Contains(r.Message, tc.want) {
			t.Errorf("%s: response %+v, want a failure to request %d %q saying %q", tc.raw, *r, tc.seq, tc.command, tc.want)
		}
		if strings.Contains(r.Message, "Go ") || strings.Contains(r.Message, "struct") {
			t.Errorf("%s: %q speaks Go", tc.raw, r.Message)
		}
		if tc.output {
			ev, _ := c.event("output", from, 10*time.Second)
			if o := ev.(*dap.OutputEvent); !strings.Contains(o.Body.Output, tc.want) {
				t.Errorf("%s: output %q, want %q", tc.raw, o.Body.Output, tc.want)
			}
		}
		if !strings.Contains(lb.tail(40), tc.raw) {
			t.Errorf("%s: not in the log as it came:\n%s", tc.raw, lb.tail(10))
		}
	}
	c.call("threads", nil) // still serving
	c.call("disconnect", nil)
}

// TestLaunchScript: a script as the program is refused at once, with the
// interpreter to give instead, not after attachTimeout.
func TestLaunchScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "app.py")
	if err := os.WriteFile(script, []byte("#!/usr/bin/env python3\nprint('hi')\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := start(t, Config{Tools: func(program, mpi, shim, mpiexec string) (Tools, error) {
		return Tools{}, os.ErrNotExist
	}})
	c.call("initialize", map[string]any{"adapterID": "mpidbg"})
	seq := c.send("launch", map[string]any{"program": "./app.py", "cwd": dir})
	r := c.wait1(seq)
	if r.Success || !strings.Contains(r.Message, "program ./app.py is a script (#!/usr/bin/env python3)") ||
		!strings.Contains(r.Message, `"program": "python3", "args": ["./app.py", ...]`) {
		t.Errorf("launch of a script: %+v", r)
	}
	c.call("disconnect", nil)
}

// wait1 waits for the response to request seq, failed or not.
func (c *testClient) wait1(seq int) *dap.Response {
	c.t.Helper()
	m, _ := c.wait("response", 10*time.Second, 0, func(m dap.Message) bool {
		r, ok := m.(dap.ResponseMessage)
		return ok && r.GetResponse().RequestSeq == seq
	})
	return m.(dap.ResponseMessage).GetResponse()
}
