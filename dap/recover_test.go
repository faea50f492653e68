package dap

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-dap"
)

// syncBuffer is a bytes.Buffer the server's goroutine and the test can
// share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestHandlerPanic: a handler that panics fails its request with an
// internal error, tells the log and stderr with the stack, and the
// server serves the next requests.
func TestHandlerPanic(t *testing.T) {
	var logged, stderr syncBuffer
	var once sync.Once
	c := start(t, Config{
		Log:    NewLogger(&logged),
		stderr: &stderr,
		beforeDispatch: func(m dap.Message) {
			if _, ok := m.(*dap.ThreadsRequest); ok {
				once.Do(func() { panic("planted by the test") })
			}
		},
	})
	c.call("initialize", map[string]any{"adapterID": "mpidbg"})
	seq := c.send("threads", nil)
	m, _ := c.wait("response to threads", 10*time.Second, 0, func(m dap.Message) bool {
		r, ok := m.(dap.ResponseMessage)
		return ok && r.GetResponse().RequestSeq == seq
	})
	r := m.(dap.ResponseMessage)
	resp := r.GetResponse()
	if resp.Success || resp.Command != "threads" ||
		!strings.Contains(resp.Message, "internal error: planted by the test") || !strings.Contains(resp.Message, "session goes on") {
		t.Errorf("response to the panicking request: success %v command %q message %q", resp.Success, resp.Command, resp.Message)
	}
	if er, ok := r.(*dap.ErrorResponse); !ok || er.Body.Error == nil || er.Body.Error.Id != errInternal {
		t.Errorf("response %#v: want an ErrorResponse with id %d", r, errInternal)
	}
	for name, out := range map[string]string{"log": logged.String(), "stderr": stderr.String()} {
		if !strings.Contains(out, "planted by the test") || !strings.Contains(out, "goroutine ") || !strings.Contains(out, "recover_test.go") {
			t.Errorf("%s lacks the panic and its stack:\n%s", name, out)
		}
	}
	if th, ok := c.call("threads", nil).(*dap.ThreadsResponse); !ok || !th.Success {
		t.Errorf("the next threads request: %#v", th)
	}
	c.call("disconnect", nil)
}
