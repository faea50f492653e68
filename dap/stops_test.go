package dap

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-dap"
)

// messages reads the messages the server wrote.
func messages(t *testing.T, out *bytes.Buffer) []dap.Message {
	t.Helper()
	var ms []dap.Message
	r := bufio.NewReader(bytes.NewReader(out.Bytes()))
	for {
		m, err := dap.ReadProtocolMessage(r)
		if err == io.EOF {
			return ms
		}
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
}

func request(seq int, command string) dap.Request {
	return dap.Request{ProtocolMessage: dap.ProtocolMessage{Seq: seq, Type: "request"}, Command: command}
}

// TestStopOfHiddenThread: a signal in a hidden thread (the shim's Go
// runtime) is reported as a stop of the rank's main thread, and what the
// client then asks of that thread (exceptionInfo) finds the stop.
func TestStopOfHiddenThread(t *testing.T) {
	ss, out := testSession(t, "")
	ss.srv.sess = ss
	ss.live = true
	ss.addRank(0, 100, "i1")
	feed(t, ss, `=thread-created,id="1",group-id="i1"`, `=thread-created,id="2",group-id="i1"`)
	ss.classify(2, true) // a Go runtime thread
	feed(t, ss, `*stopped,reason="signal-received",signal-name="SIGSEGV",signal-meaning="Segmentation fault",thread-id="2",stopped-threads="all"`)
	ss.queue.close()
	ss.events()
	ss.srv.onExceptionInfoRequest(&dap.ExceptionInfoRequest{Request: request(9, "exceptionInfo"),
		Arguments: dap.ExceptionInfoArguments{ThreadId: 1}})
	var stopped *dap.StoppedEvent
	var info dap.Message
	for _, m := range messages(t, out) {
		switch m := m.(type) {
		case *dap.StoppedEvent:
			stopped = m
		case *dap.ExceptionInfoResponse, *dap.ErrorResponse:
			info = m
		}
	}
	if stopped == nil || stopped.Body.ThreadId != 1 || stopped.Body.Reason != "exception" {
		t.Fatalf("stopped event %+v: want an exception stop of thread 1, the rank's main thread", stopped)
	}
	r, ok := info.(*dap.ExceptionInfoResponse)
	if !ok || !strings.HasPrefix(r.Body.ExceptionId, "SIGSEGV") {
		t.Errorf("exceptionInfo of thread 1: %+v, want SIGSEGV", info)
	}
	if f := ss.anyStoppedFrame(); f.thread != 1 {
		t.Errorf("the Debug Console evaluates in thread %d, want 1", f.thread)
	}
	// frames to hide counted on the hidden thread's stack are not the
	// main thread's
	ss.stopped(2, "exception", "", nil, &stopInfo{hide: 3, signal: "SIGBUS (Bus error)"})
	if info := ss.stopOf(1); info == nil || info.signal != "SIGBUS (Bus error)" || info.hide != 0 {
		t.Errorf("stop of thread 1: %+v, want SIGBUS with no frame hidden", info)
	}
}

// TestScopesMPICall: the scopes of a frame calling an MPI function name
// the call from the stack trace that gave the frame, without asking gdb
// again; at a finding's stop the call is in a hidden frame.
func TestScopesMPICall(t *testing.T) {
	gdb, _ := fakeGdb(t, map[int]string{5: stackUserInGo})
	ss, out := testSession(t, gdb)
	ss.srv.sess = ss
	ss.stops[5] = &stopInfo{hide: 4} // the program's frame, worker, calls MPI_Send (level 3)
	ss.srv.onStackTraceRequest(&dap.StackTraceRequest{Request: request(1, "stackTrace"),
		Arguments: dap.StackTraceArguments{ThreadId: 5}})
	var frames []dap.StackFrame
	for _, m := range messages(t, out) {
		if r, ok := m.(*dap.StackTraceResponse); ok {
			frames = r.Body.StackFrames
		}
	}
	if len(frames) != 3 || frames[0].Name != "worker.constprop.0" {
		t.Fatalf("stack %+v: want worker.constprop.0 on top of 3 frames", frames)
	}
	// the thread runs on: gdb can no longer list its frames
	if err := os.Remove(filepath.Join(filepath.Dir(gdb), "stack.5")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	for i, f := range frames[:2] {
		ss.srv.onScopesRequest(&dap.ScopesRequest{Request: request(2+i, "scopes"), Arguments: dap.ScopesArguments{FrameId: f.Id}})
	}
	var got [][]string
	for _, m := range messages(t, out) {
		r, ok := m.(*dap.ScopesResponse)
		if !ok {
			t.Fatalf("scopes: %+v", m)
		}
		var names []string
		for _, s := range r.Body.Scopes {
			names = append(names, s.Name)
		}
		got = append(got, names)
	}
	if len(got) != 2 || len(got[0]) != 2 || got[0][1] != "MPI call: MPI_Send" || len(got[1]) != 1 {
		t.Errorf("scopes %q: want Locals and MPI call: MPI_Send for worker, Locals alone for start_thread", got)
	}
}
