package dap

import "github.com/google/go-dap"

// dispatch hands one request to its handler; true ends Serve.
func (s *Server) dispatch(m dap.Message) bool {
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
