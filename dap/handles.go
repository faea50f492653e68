package dap

import "sync"

// handles gives out the numbers the client refers to frames and
// variables by. They are valid until the job runs again: gdb's varobjs
// and frames mean nothing after that, so reset drops them all. A number
// is never given twice in a session, so that one the client kept from
// before the job ran is refused, not taken for a newer object.
type handles struct {
	mu   sync.Mutex
	base int   // the ids before base+1 were dropped
	objs []any // id base+i+1 is objs[i]
}

func newHandles() *handles { return &handles{} }

func (h *handles) add(v any) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.objs = append(h.objs, v)
	return h.base + len(h.objs)
}

func (h *handles) get(id int) (any, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := id - h.base - 1
	if id <= h.base || i >= len(h.objs) {
		return nil, false
	}
	return h.objs[i], true
}

func (h *handles) reset() {
	h.mu.Lock()
	h.base += len(h.objs)
	h.objs = nil
	h.mu.Unlock()
}

// frameRef is a stack frame: gdb's thread id and frame level, and the
// function of the frame one level newer (the one it is calling) as the
// stack trace listed it, "" at level 0.
type frameRef struct {
	thread, level int
	callee        string // the MPI function this frame calls, if any
	callLevel     int    // the frame with that call's C arguments: the callee's, or for a Fortran binding the C call it makes
}

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
