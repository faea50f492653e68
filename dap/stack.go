package dap

import (
	"fmt"
	"path/filepath"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/dap/gdbmi"
	"github.com/mpidbg/mpidbg/internal/mpiframe"
)

func (s *Server) onThreadsRequest(req *dap.ThreadsRequest) {
	resp := &dap.ThreadsResponse{Response: response(req)}
	resp.Body.Threads = []dap.Thread{}
	if ss := s.session(); ss != nil {
		ss.classifyThreadsIfStopped()
		for _, t := range ss.sortedThreads() {
			resp.Body.Threads = append(resp.Body.Threads, dap.Thread{Id: t.id, Name: threadName(t)})
		}
	}
	s.send(resp)
}

// classifyThreadsIfStopped classifies new threads while gdb can look at
// them.
func (ss *session) classifyThreadsIfStopped() {
	ss.mu.Lock()
	stopped := ss.halted || len(ss.stops) > 0 || !ss.live
	ss.mu.Unlock()
	if stopped {
		ss.classifyThreads()
	}
}

func (s *Server) onStackTraceRequest(req *dap.StackTraceRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "no job is being debugged")
		return
	}
	tid := req.Arguments.ThreadId
	hide := 0
	if info := ss.stopOf(tid); info != nil {
		hide = info.hide
	}
	rec, err := ss.mi("-stack-list-frames --thread %d", tid)
	if err != nil {
		s.fail(req, errStack, "stack of thread %d: %v", tid, err)
		return
	}
	frames := rec.Results.List("stack").Results
	if hide > len(frames) {
		hide = 0
	}
	all := frames[hide:]
	start := req.Arguments.StartFrame
	if start > len(all) {
		start = len(all)
	}
	end := len(all)
	if n := req.Arguments.Levels; n > 0 && start+n < end {
		end = start + n
	}
	resp := &dap.StackTraceResponse{Response: response(req)}
	resp.Body.StackFrames = []dap.StackFrame{}
	for _, r := range all[start:end] {
		f, _ := r.Value.(gdbmi.Tuple)
		level := atoi(f.String("level"))
		ref := frameRef{thread: tid, level: level}
		if level > 0 && level <= len(frames) {
			// gdb lists every frame, innermost first: level L-1 is
			// frames[L-1], which the scopes request names the MPI call by
			// a Fortran binding's frame has no C arguments to show: the
			// call it makes is further in (mpiframe.ArgsFrame)
			stack := make([]mpiframe.Frame, level)
			for l := range stack {
				t, _ := frames[l].Value.(gdbmi.Tuple)
				stack[l] = frameOf(t)
			}
			ref.callLevel = mpiframe.ArgsFrame(stack, level-1)
			ref.callee = stack[ref.callLevel].Func
		}
		sf := dap.StackFrame{Id: ss.refs.add(ref), Name: f.String("func"),
			Line: atoi(f.String("line")), Column: 1, InstructionPointerReference: f.String("addr")}
		if sf.Name == "" || sf.Name == "??" {
			sf.Name = f.String("addr")
		}
		if file := f.String("fullname"); file != "" {
			sf.Source = &dap.Source{Name: filepath.Base(file), Path: file}
		} else {
			if from := f.String("from"); from != "" {
				sf.Name += " (" + filepath.Base(from) + ")"
			}
			sf.PresentationHint = "subtle"
		}
		if internalFrame(f) {
			sf.PresentationHint = "subtle"
		}
		resp.Body.StackFrames = append(resp.Body.StackFrames, sf)
	}
	resp.Body.TotalFrames = len(all)
	s.send(resp)
}

// frame looks up a frame id.
func (ss *session) frame(id int) (frameRef, bool) {
	v, ok := ss.refs.get(id)
	f, isFrame := v.(frameRef)
	return f, ok && isFrame
}

func (s *Server) onScopesRequest(req *dap.ScopesRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "no job is being debugged")
		return
	}
	f, ok := ss.frame(req.Arguments.FrameId)
	if !ok {
		s.fail(req, errUnknownID, "frame %d is not known (the job ran since)", req.Arguments.FrameId)
		return
	}
	resp := &dap.ScopesResponse{Response: response(req)}
	resp.Body.Scopes = []dap.Scope{{Name: "Locals", PresentationHint: "locals", VariablesReference: ss.refs.add(localsRef{f})}}
	if call := callBelow(f); call != "" {
		resp.Body.Scopes = append(resp.Body.Scopes, dap.Scope{Name: fmt.Sprintf("MPI call: %s", call),
			VariablesReference: ss.refs.add(callRef{f})})
	}
	s.send(resp)
}

// callBelow is the MPI function frame f is calling, if any: the frame
// one level newer, as the stack trace listed it, is an MPI_* function.
func callBelow(f frameRef) string {
	if f.level > 0 && mpiframe.IsCall(f.callee) {
		return f.callee
	}
	return ""
}
