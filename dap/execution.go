package dap

import (
	"fmt"

	"github.com/google/go-dap"
)

// Execution requests. In all-stop mode (the default) every rank runs
// when one does: an MPI call in one rank needs the others to progress.
// In non-stop mode a request acts on the thread's rank alone, unless
// singleThread says the thread alone.

// selector is the MI option that picks what a resume acts on.
func (ss *session) selector(tid int, single bool) string {
	if !ss.nonStop {
		return fmt.Sprintf("--thread %d", tid)
	}
	if t := ss.threadOf(tid); t != nil && t.rank != nil && !single {
		return "--thread-group " + t.rank.group
	}
	return fmt.Sprintf("--thread %d", tid)
}

func (s *Server) onContinueRequest(req *dap.ContinueRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "no job is being debugged")
		return
	}
	ss.clearPause()
	var err error
	if ss.nonStop {
		_, err = ss.mi("-exec-continue %s", ss.selector(req.Arguments.ThreadId, req.Arguments.SingleThread))
	} else {
		err = ss.resumeAll()
	}
	if err != nil {
		s.fail(req, errExecution, "continue: %v", err)
		return
	}
	resp := &dap.ContinueResponse{Response: response(req)}
	resp.Body.AllThreadsContinued = !ss.nonStop
	s.send(resp)
}

// step runs one of gdb's stepping commands on a thread. When the thread
// stopped on a finding, the frames above the program's are hidden: the
// step starts by finishing the MPI call, so that it lands in the
// program's frame as the user expects.
func (s *Server) step(req dap.RequestMessage, tid int, single bool, command string) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "no job is being debugged")
		return
	}
	ss.clearPause()
	sel := ss.selector(tid, single)
	if info := ss.stopOf(tid); info != nil && info.hide > 0 {
		// finish the frame just above the program's: back in its line
		command = fmt.Sprintf("-exec-finish --frame %d", info.hide-1)
	}
	if _, err := ss.mi("%s %s", command, sel); err != nil {
		s.fail(req, errExecution, "%v", err)
		return
	}
	switch r := req.(type) {
	case *dap.NextRequest:
		s.send(&dap.NextResponse{Response: response(r)})
	case *dap.StepInRequest:
		s.send(&dap.StepInResponse{Response: response(r)})
	case *dap.StepOutRequest:
		s.send(&dap.StepOutResponse{Response: response(r)})
	}
}

func (s *Server) onNextRequest(req *dap.NextRequest) {
	s.step(req, req.Arguments.ThreadId, req.Arguments.SingleThread, "-exec-next")
}

func (s *Server) onStepInRequest(req *dap.StepInRequest) {
	s.step(req, req.Arguments.ThreadId, req.Arguments.SingleThread, "-exec-step")
}

func (s *Server) onStepOutRequest(req *dap.StepOutRequest) {
	s.step(req, req.Arguments.ThreadId, req.Arguments.SingleThread, "-exec-finish")
}

func (s *Server) onPauseRequest(req *dap.PauseRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "no job is being debugged")
		return
	}
	var err error
	if ss.nonStop {
		ss.mu.Lock()
		ss.pause = "pause"
		ss.mu.Unlock()
		_, err = ss.mi("-exec-interrupt %s", ss.selector(req.Arguments.ThreadId, false))
	} else {
		err = ss.interrupt("pause")
	}
	if err != nil {
		s.fail(req, errExecution, "pause: %v", err)
		return
	}
	s.send(&dap.PauseResponse{Response: response(req)})
}

// clearPause forgets an interrupt that was answered.
func (ss *session) clearPause() {
	ss.mu.Lock()
	if ss.pause != "deadlock" {
		ss.pause = ""
	}
	ss.mu.Unlock()
}
