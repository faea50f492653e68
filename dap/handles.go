package dap

import "sync"

// handles gives out the numbers the client refers to frames and
// variables by. They are valid until the job runs again: gdb's varobjs
// and frames mean nothing after that, so reset drops them all.
type handles struct {
	mu   sync.Mutex
	objs []any // id i+1 is objs[i]
}

func newHandles() *handles { return &handles{} }

func (h *handles) add(v any) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.objs = append(h.objs, v)
	return len(h.objs)
}

func (h *handles) get(id int) (any, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id < 1 || id > len(h.objs) {
		return nil, false
	}
	return h.objs[id-1], true
}

func (h *handles) reset() {
	h.mu.Lock()
	h.objs = nil
	h.mu.Unlock()
}

// frameRef is a stack frame: gdb's thread id and frame level.
type frameRef struct{ thread, level int }

// Variables references.
type (
	localsRef struct{ frameRef } // a frame's locals and arguments
	callRef   struct{ frameRef } // the MPI call a frame is making
	varobjRef struct {
		name  string
		frame frameRef
	} // a gdb varobj's children
	bufferRef struct { // an MPI buffer's elements start..end-1, as its datatype sees them
		frame          frameRef
		addr, datatype string // as -mpi-call gives them
		count          int    // instances of the datatype
		start, end     int
		page           bool // one page of a longer buffer
	}
)
