package dap

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/mpidbg/mpidbg/dap/gdbmi"
	"github.com/mpidbg/mpidbg/internal/mpiframe"
)

// classifyThreads decides, for each thread not yet classified, whether
// it is the program's (shown) or one of the shim's Go runtime (hidden),
// and numbers the shown ones. gdb can read a thread's stack only while
// the thread is stopped: a running one is decided at a later stop.
func (ss *session) classifyThreads() {
	ss.mu.Lock()
	var todo []int
	for id, t := range ss.threads {
		if !t.known {
			todo = append(todo, id)
		}
	}
	ss.mu.Unlock()
	// gdb numbers threads in order of creation: so are the shown ones
	sort.Ints(todo)
	for _, id := range todo {
		rec, err := ss.mi("-stack-list-frames --thread %d 0 %d", id, classifyDepth-1)
		if err != nil {
			continue // running, or gone
		}
		var frames []gdbmi.Tuple
		for _, r := range rec.Results.List("stack").Results {
			f, _ := r.Value.(gdbmi.Tuple)
			frames = append(frames, f)
		}
		goRuntime := goRuntimeStack(frames)
		ss.classify(id, goRuntime)
		// for --log: why a thread is shown or not
		ss.srv.logf("thread %d: Go runtime %v; stack %s", id, goRuntime, stackSummary(frames))
	}
}

// classifyDepth is how many frames of a thread classifyThreads reads: a
// Go runtime thread's stack, as gdb unwinds it, is about 15 frames; a
// deeper one is decided on its first frames.
const classifyDepth = 32

// classify records what a thread is. A rank's first thread is always
// shown. A shown thread takes the rank's next number, which it keeps
// for its life: "rank R thread T" is the T-th thread of rank R the
// client is shown, whatever number of Go runtime threads came between.
func (ss *session) classify(id int, goRuntime bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	t := ss.threads[id]
	if t == nil || t.known {
		return
	}
	t.known = true
	t.hidden = goRuntime && (t.rank == nil || t.rank.main != id)
	if !t.hidden && t.rank != nil {
		t.rank.nthreads++
		t.index = t.rank.nthreads
	}
}

// goRuntimeStack tells whether a stack (innermost frame first, as
// -stack-list-frames gives it) is a thread of the shim's Go runtime.
// The thread's outermost frame decides, the last one before gdb loses
// the stack (at the runtime's stack switches, gdb unwinds into
// garbage): a Go runtime thread starts in Go (runtime.mstart, cgo's
// crosscall1), a program's thread in libc (start_thread) or main. The
// innermost frames cannot decide: a thread of the shim's Go runtime may
// be in any Go package (internal/runtime/syscall/linux.Syscall6 for the
// netpoller), and a program's thread in an MPI call may be running the
// shim's Go code through cgo.
func goRuntimeStack(frames []gdbmi.Tuple) bool {
	var outer gdbmi.Tuple
	for _, f := range frames {
		if lostFrame(f) {
			break
		}
		outer = f
	}
	return outer != nil && goFrame(outer)
}

// stackSummary is a stack's functions, innermost first, for the log.
func stackSummary(frames []gdbmi.Tuple) string {
	var fns []string
	for _, f := range frames {
		fn := f.String("func")
		if from := f.String("from"); from != "" {
			fn += " (" + filepath.Base(from) + ")"
		}
		fns = append(fns, fn)
	}
	return strings.Join(fns, " < ")
}

// lostFrame is a frame gdb knows nothing of: no function, no source,
// no library. The frames past it are garbage.
func lostFrame(f gdbmi.Tuple) bool {
	fn := f.String("func")
	return (fn == "" || fn == "??") && f.String("file") == "" && f.String("from") == ""
}

// goFrame tells whether a frame is the shim's Go code, its runtime, or
// cgo's glue (mpiframe.Go).
func goFrame(f gdbmi.Tuple) bool { return mpiframe.Go(frameOf(f)) }
