package dap

import (
	"strings"
	"testing"

	"github.com/google/go-dap"
)

// TestHandlesNotReused: an id from before the job ran is refused after
// it, not taken for whatever got its number since.
func TestHandlesNotReused(t *testing.T) {
	h := newHandles()
	a, b := h.add("a"), h.add("b")
	if v, ok := h.get(b); !ok || v != "b" {
		t.Fatalf("get(%d) = %v, %v; want b", b, v, ok)
	}
	h.reset()
	c := h.add("c")
	if c == a || c == b {
		t.Errorf("after reset, ids %d and %d given again as %d", a, b, c)
	}
	for _, id := range []int{a, b, 0, -1, c + 1} {
		if v, ok := h.get(id); ok {
			t.Errorf("get(%d) = %v after reset, want none", id, v)
		}
	}
	if v, ok := h.get(c); !ok || v != "c" {
		t.Errorf("get(%d) = %v, %v; want c", c, v, ok)
	}
	h.reset()
	h.reset()
	if d := h.add("d"); d <= c {
		t.Errorf("id %d after %d", d, c)
	}
}

// TestStaleFrame: a frame id the client kept from the last stop is
// refused once the job ran (gdb's *running), though a new stop gave out
// ids again.
func TestStaleFrame(t *testing.T) {
	ss, out := testSession(t, "")
	ss.srv.sess = ss
	old := ss.refs.add(frameRef{thread: 1, level: 2})
	feed(t, ss, `*running,thread-id="all"`)
	ss.queue.close()
	ss.events()
	fresh := ss.refs.add(frameRef{thread: 3, level: 0}) // the next stop's first frame
	if _, ok := ss.frame(old); ok {
		t.Fatalf("frame %d (before the job ran) is still known; the new id is %d", old, fresh)
	}
	ss.srv.onScopesRequest(&dap.ScopesRequest{Request: dap.Request{ProtocolMessage: dap.ProtocolMessage{Seq: 7, Type: "request"},
		Command: "scopes"}, Arguments: dap.ScopesArguments{FrameId: old}})
	if !strings.Contains(out.String(), "the job ran since") {
		t.Errorf("scopes of frame %d: %s; want \"the job ran since\"", old, out)
	}
}
