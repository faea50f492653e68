package dap

import (
	"fmt"
	"runtime/debug"

	"github.com/google/go-dap"
)

// handle hands one request to its handler; true ends Serve. A handler
// that panics fails its request instead of ending the server: the
// session, and every rank under its gdb, outlive a bug in one request's
// code, and the client can go on (or disconnect cleanly, which kills or
// detaches the ranks as usual).
func (s *Server) handle(m dap.Message) (stop bool) {
	defer func() {
		if v := recover(); v != nil {
			s.recovered(m, v, debug.Stack())
			stop = false
		}
	}()
	return s.dispatch(m)
}

// recovered reports a handler's panic: the stack to the log and to
// standard error (never standard output, which may be the protocol),
// and an error response to the request.
func (s *Server) recovered(m dap.Message, v any, stack []byte) {
	what := fmt.Sprintf("%T", m)
	req, isRequest := m.(dap.RequestMessage)
	if isRequest {
		what = fmt.Sprintf("the %q request", req.GetRequest().Command)
	}
	s.logf("panic in %s: %v\n%s", what, v, stack)
	fmt.Fprintf(s.stderr, "mpidbg dap: panic in %s (the session goes on): %v\n%s", what, v, stack)
	if isRequest {
		s.fail(req, errInternal, "mpidbg dap failed on the %s request (an internal error: %v); "+
			"the session goes on, and the log (--log) has the details for a bug report", req.GetRequest().Command, v)
	}
}

// dispatch hands one request to its handler; true ends Serve.
func (s *Server) dispatch(m dap.Message) bool {
	if s.cfg.beforeDispatch != nil {
		s.cfg.beforeDispatch(m)
	}
	switch req := m.(type) {
	case *dap.InitializeRequest:
		s.onInitializeRequest(req)
	case *dap.LaunchRequest:
		s.onLaunchRequest(req)
	case *dap.AttachRequest:
		s.onAttachRequest(req)
	case *dap.ConfigurationDoneRequest:
		s.onConfigurationDoneRequest(req)
	case *dap.DisconnectRequest:
		s.onDisconnectRequest(req)
		return true
	case *dap.TerminateRequest:
		s.onTerminateRequest(req)
	case *dap.SetBreakpointsRequest:
		s.onSetBreakpointsRequest(req)
	case *dap.SetFunctionBreakpointsRequest:
		s.onSetFunctionBreakpointsRequest(req)
	case *dap.SetExceptionBreakpointsRequest:
		s.onSetExceptionBreakpointsRequest(req)
	case *dap.ThreadsRequest:
		s.onThreadsRequest(req)
	case *dap.StackTraceRequest:
		s.onStackTraceRequest(req)
	case *dap.ScopesRequest:
		s.onScopesRequest(req)
	case *dap.VariablesRequest:
		s.onVariablesRequest(req)
	case *dap.EvaluateRequest:
		s.onEvaluateRequest(req)
	case *dap.ReadMemoryRequest:
		s.onReadMemoryRequest(req)
	case *dap.ContinueRequest:
		s.onContinueRequest(req)
	case *dap.NextRequest:
		s.onNextRequest(req)
	case *dap.StepInRequest:
		s.onStepInRequest(req)
	case *dap.StepOutRequest:
		s.onStepOutRequest(req)
	case *dap.PauseRequest:
		s.onPauseRequest(req)
	case *dap.ExceptionInfoRequest:
		s.onExceptionInfoRequest(req)
	case dap.RequestMessage:
		s.fail(req, errUnsupported, "mpidbg dap does not support the %q request", req.GetRequest().Command)
	}
	return false
}

// onInitializeRequest says what this adapter can do.
func (s *Server) onInitializeRequest(req *dap.InitializeRequest) {
	resp := &dap.InitializeResponse{Response: response(req)}
	resp.Body = dap.Capabilities{
		SupportsConfigurationDoneRequest:  true,
		SupportsFunctionBreakpoints:       true,
		SupportsConditionalBreakpoints:    true,
		SupportsHitConditionalBreakpoints: true,
		SupportsEvaluateForHovers:         true,
		SupportsExceptionInfoRequest:      true,
		SupportsReadMemoryRequest:         true,
		SupportsTerminateRequest:          true,
		SupportTerminateDebuggee:          true,
		SupportsDelayedStackTraceLoading:  true,
		SupportsLogPoints:                 false,
		ExceptionBreakpointFilters:        exceptionFilters(),
	}
	s.send(resp)
}
