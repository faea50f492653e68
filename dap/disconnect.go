package dap

import (
	"fmt"
	"time"

	"github.com/google/go-dap"
)

// onDisconnectRequest ends the session: a launched job is terminated,
// an attached one detached (unless terminateDebuggee is true).
func (s *Server) onDisconnectRequest(req *dap.DisconnectRequest) {
	var terminate *bool
	if ss := s.session(); ss != nil && ss.job == nil && req.Arguments != nil {
		terminate = &req.Arguments.TerminateDebuggee
	}
	s.endSession(terminate)
	s.send(&dap.DisconnectResponse{Response: response(req)})
}

// onTerminateRequest ends a launched job; the session ends with it.
func (s *Server) onTerminateRequest(req *dap.TerminateRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "no job is being debugged")
		return
	}
	s.send(&dap.TerminateResponse{Response: response(req)})
	if ss.job != nil {
		ss.endJob()
	} else {
		ss.detachRanks()
	}
	s.terminated()
}

// endSession ends gdb and, when terminate says so, the job; a nil
// terminate uses the default (end what was launched, leave what was
// attached to).
func (s *Server) endSession(terminate *bool) {
	s.mu.Lock()
	ss := s.sess
	s.mu.Unlock()
	if ss == nil {
		return
	}
	ss.mu.Lock()
	done := ss.ended
	ss.ended = true
	ss.mu.Unlock()
	if done {
		return
	}
	launched := ss.job != nil
	end := launched
	if terminate != nil {
		end = *terminate
	}
	switch {
	case end && launched:
		ss.endJob()
	case end:
		ss.killRanks()
	default:
		// the ranks must not stay stopped, nor hit a breakpoint without
		// a debugger
		ss.interruptIfRunning()
		ss.detachRanks()
	}
	ss.close()
}

// interruptIfRunning stops the job so that gdb can detach.
func (ss *session) interruptIfRunning() {
	ss.mu.Lock()
	running := !ss.halted && ss.live
	ss.mu.Unlock()
	if !running || ss.nonStop {
		return
	}
	ch := ss.waitStop()
	ss.mi("-exec-interrupt --all")
	select {
	case <-ch:
	case <-time.After(2 * time.Second):
	}
}

// terminated tells the client, once, that the debug session is over.
func (s *Server) terminated() {
	s.mu.Lock()
	done := s.ended
	s.ended = true
	s.mu.Unlock()
	if !done {
		s.send(&dap.TerminatedEvent{Event: event("terminated")})
	}
}

// watchJob reports the job's end: exited (mpiexec's status), then
// terminated.
func (ss *session) watchJob() {
	j := ss.job
	<-j.done
	if j.err != nil {
		ss.srv.output("console", fmt.Sprintf("mpidbg: %v\n", j.err))
	}
	for _, s := range j.result.Refused.Phrases() { // connections turned away (run/launch's Listener)
		ss.srv.output("console", "mpidbg: "+s+"\n")
	}
	ev := &dap.ExitedEvent{Event: event("exited")}
	ev.Body.ExitCode = j.result.ExitCode
	ss.srv.send(ev)
	ss.srv.terminated()
}
